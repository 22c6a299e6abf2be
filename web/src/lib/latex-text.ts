/**
 * LaTeX mathematics as readable plain text: `\frac{1}{\sqrt{2}}(|0\rangle + |1\rangle)` reads
 * "1/√2(|0⟩ + |1⟩)", `x_1^2` reads "x₁²". For places that show text only (search snippets, which may cut a
 * formula anywhere); pages themselves typeset mathematics with KaTeX. Unknown commands lose their backslash.
 */

/** `name symbol` pairs separated by spaces, as a map. */
const pairs = (text: string): Record<string, string> => {
  const words = text.trim().split(/\s+/);
  return Object.fromEntries(words.flatMap((w, i) => (i % 2 === 0 ? [[w, words[i + 1]!]] : [])));
};

/** Commands (and escaped characters) that stand for one symbol. */
const SYMBOLS = pairs(`
alpha α beta β gamma γ delta δ epsilon ε varepsilon ε zeta ζ eta η theta θ vartheta ϑ iota ι kappa κ
lambda λ mu μ nu ν xi ξ pi π varpi ϖ rho ρ sigma σ varsigma ς tau τ upsilon υ phi φ varphi φ chi χ psi ψ
omega ω Gamma Γ Delta Δ Theta Θ Lambda Λ Xi Ξ Pi Π Sigma Σ Upsilon Υ Phi Φ Psi Ψ Omega Ω hbar ℏ ell ℓ
infty ∞ partial ∂ nabla ∇ emptyset ∅ forall ∀ exists ∃ neg ¬ lnot ¬ land ∧ wedge ∧ lor ∨ vee ∨ cap ∩ cup ∪
in ∈ notin ∉ ni ∋ subset ⊂ subseteq ⊆ supset ⊃ supseteq ⊇ le ≤ leq ≤ ge ≥ geq ≥ ne ≠ neq ≠ approx ≈ sim ∼
simeq ≃ cong ≅ equiv ≡ propto ∝ ll ≪ gg ≫ pm ± mp ∓ times × div ÷ cdot · circ ∘ ast ∗ star ⋆ dagger †
ddagger ‡ otimes ⊗ oplus ⊕ odot ⊙ sum ∑ prod ∏ coprod ∐ int ∫ oint ∮ iint ∬ to → rightarrow → leftarrow ←
leftrightarrow ↔ Rightarrow ⇒ Leftarrow ⇐ Leftrightarrow ⇔ implies ⇒ iff ⇔ mapsto ↦ uparrow ↑ downarrow ↓
langle ⟨ rangle ⟩ lceil ⌈ rceil ⌉ lfloor ⌊ rfloor ⌋ vert | lvert | rvert | Vert ‖ lVert ‖ rVert ‖ mid |
parallel ∥ perp ⊥ angle ∠ ldots … cdots ⋯ dots … vdots ⋮ ddots ⋱ prime ′ degree ° surd √ lbrace {
rbrace } { { } } % % $ $ & & # # _ _ bmod mod
`);

/** Spacing commands: `\,` `\;` `\quad` …; `\!` takes space away. */
const SPACES = new Set([',', ';', ':', ' ', 'quad', 'qquad', '\\']);

/** Commands that only size or space what follows: dropped. */
const DROPPED = new Set([
  'left',
  'right',
  'big',
  'Big',
  'bigg',
  'Bigg',
  'bigl',
  'bigr',
  'Bigl',
  'Bigr',
  'displaystyle',
  'textstyle',
  'scriptstyle',
  'limits',
  'nolimits',
  'notag',
  'nonumber',
]);

/** Commands whose argument is shown as it is (fonts, text). */
const FONTS = new Set([
  'text',
  'textrm',
  'textit',
  'textbf',
  'mathrm',
  'mathit',
  'mathbf',
  'mathsf',
  'mathtt',
  'mathcal',
  'mathscr',
  'mathfrak',
  'boldsymbol',
  'bm',
  'operatorname',
  'emph',
  'hat',
  'bar',
  'tilde',
  'vec',
  'dot',
  'ddot',
  'overline',
  'underline',
  'widehat',
  'widetilde',
  'mathbb',
]);

const DOUBLE_STRUCK: Record<string, string> = { R: 'ℝ', C: 'ℂ', N: 'ℕ', Z: 'ℤ', Q: 'ℚ', P: 'ℙ', H: 'ℍ', E: '𝔼' };

const SUPER = pairs(
  `0 ⁰ 1 ¹ 2 ² 3 ³ 4 ⁴ 5 ⁵ 6 ⁶ 7 ⁷ 8 ⁸ 9 ⁹ + ⁺ - ⁻ − ⁻ = ⁼ ( ⁽ ) ⁾ n ⁿ i ⁱ T ᵀ † † * * ′ ′ k ᵏ m ᵐ t ᵗ x ˣ`,
);
const SUB = pairs(
  `0 ₀ 1 ₁ 2 ₂ 3 ₃ 4 ₄ 5 ₅ 6 ₆ 7 ₇ 8 ₈ 9 ₉ + ₊ - ₋ − ₋ = ₌ ( ₍ ) ₎ a ₐ e ₑ h ₕ i ᵢ j ⱼ k ₖ l ₗ m ₘ n ₙ o ₒ p ₚ r ᵣ s ₛ t ₜ u ᵤ v ᵥ x ₓ`,
);

/** `text` in raised or lowered characters when every one has such a form, else `^(text)` / `_(text)`. */
function script(text: string, table: Record<string, string>, mark: '^' | '_'): string {
  const chars = [...text.replace(/\s+/g, '')];
  if (chars.length > 0 && chars.every((c) => table[c] !== undefined)) return chars.map((c) => table[c]).join('');
  return chars.length === 1 ? `${mark}${text}` : `${mark}(${text})`;
}

/** `a/b` reads right only when each side is one symbol or already bracketed. */
const operand = (s: string): string => ([...s].length <= 1 || /^√?[\p{L}\p{N}.]+$/u.test(s) ? s : `(${s})`);

class Reader {
  private i = 0;
  constructor(private readonly src: string) {}

  /** Everything up to the end, or up to the `}` closing the current group. */
  sequence(inGroup: boolean): string {
    let out = '';
    while (this.i < this.src.length) {
      const c = this.src[this.i]!;
      if (c === '}') {
        this.i++;
        if (inGroup) return out;
        continue; // a stray closing brace (a formula cut by the snippet)
      }
      out += this.item();
    }
    return out;
  }

  /** One argument: a `{…}` group, a command or a single character. */
  private argument(): string {
    while (this.src[this.i] === ' ') this.i++;
    const c = this.src[this.i];
    if (c === undefined) return '';
    if (c === '{' || c === '\\') return this.item();
    this.i++;
    return c;
  }

  private item(): string {
    const c = this.src[this.i]!;
    if (c === '{') {
      this.i++;
      return this.sequence(true);
    }
    if (c === '\\') return this.command();
    this.i++;
    if (c === '^') return script(this.argument(), SUPER, '^');
    if (c === '_') return script(this.argument(), SUB, '_');
    if (c === '~') return ' ';
    if (c === '&') return ' ';
    if (c === "'") return '′';
    return c;
  }

  private command(): string {
    this.i++; // the backslash
    const name = /^[A-Za-z]+/.exec(this.src.slice(this.i))?.[0] ?? this.src[this.i] ?? '';
    this.i += name.length;
    if (name === 'frac' || name === 'dfrac' || name === 'tfrac') {
      const top = this.argument();
      const bottom = this.argument();
      return `${operand(top)}/${operand(bottom)}`;
    }
    if (name === 'sqrt') {
      let index = '';
      if (this.src[this.i] === '[') {
        const close = this.src.indexOf(']', this.i);
        if (close > 0) {
          index = this.src.slice(this.i + 1, close);
          this.i = close + 1;
        }
      }
      const body = this.argument();
      return `${index ? script(index, SUPER, '^') : ''}√${operand(body)}`;
    }
    if (name === 'ket') return `|${this.argument()}⟩`;
    if (name === 'bra') return `⟨${this.argument()}|`;
    if (name === 'braket') return `⟨${this.argument()}⟩`;
    if (name === 'mathbb') {
      const arg = this.argument();
      return [...arg].map((ch) => DOUBLE_STRUCK[ch] ?? ch).join('');
    }
    if (FONTS.has(name)) return this.argument();
    if (name === 'begin' || name === 'end' || name === 'label' || name === 'tag') {
      this.argument(); // an environment's name, a label
      return ' ';
    }
    if (DROPPED.has(name)) return '';
    if (SPACES.has(name)) return ' ';
    if (name === '!') return '';
    return SYMBOLS[name] ?? name;
  }
}

/** LaTeX source (the inside of `$…$`, possibly cut short) as plain text. */
export function latexText(tex: string): string {
  return new Reader(tex).sequence(false).replace(/\s+/g, ' ').trim();
}
