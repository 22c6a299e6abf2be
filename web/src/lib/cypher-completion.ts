/** What the Cypher editor completes at the cursor, read from the text before it (CONTRACT §14 schema names). */
export type CompletionKind = 'label' | 'relationship' | 'property' | 'any';

export interface CompletionSpot {
  kind: CompletionKind;
  /** Offset in the text where the word being completed starts. */
  from: number;
}

/**
 * Inside a node pattern `(x:`, `(:A:`, `(n:A|B&` → labels; inside a relationship pattern `[r:`, `[:A|` → types.
 * The opening bracket, an optional variable, earlier names of the label expression, then a separator and the word.
 */
const PATTERN = /([([])\s*(?:[A-Za-z_]\w*)?\s*(?:[:|&!]\s*!?\s*\w+\s*)*[:|&]\s*!?\s*(\w*)$/;
/** `n.ti` → property keys. */
const PROPERTY = /[\w)\]]\.(\w*)$/;
const WORD = /\w+$/;

/** Where and what to complete in `before` (the text up to the cursor), or null where nothing fits. */
export function completionSpot(before: string, explicit = false): CompletionSpot | null {
  const end = before.length;
  const pattern = PATTERN.exec(before);
  if (pattern) return { kind: pattern[1] === '(' ? 'label' : 'relationship', from: end - pattern[2]!.length };
  const property = PROPERTY.exec(before);
  if (property) return { kind: 'property', from: end - property[1]!.length };
  const word = WORD.exec(before);
  if (word) return { kind: 'any', from: end - word[0].length };
  return explicit ? { kind: 'any', from: end } : null;
}
