/**
 * The development server's sample papers (assets/sample-papers/): metadata, markdown with equations, figures drawn
 * here as PNG images, a text PDF and the parser's result zip — all built from the repository, byte for byte the same
 * on every start (so storing them again changes nothing). Import after the TypeScript loader is registered
 * (test/support/upstreams/ts-loader.mjs): it reuses the tests' PNG and zip writers.
 */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { makePng } from '../../test/web/support/png.ts';
import { resultZip } from '../../test/support/upstreams/mineru.ts';

const DIR = new URL('../../assets/sample-papers/', import.meta.url);

/**
 * @typedef {{ id: string, version: number, title: string, authors: string[], abstract: string, published: string,
 *   doi: string | null, markdown: string, figures: Record<string, string> }} SamplePaperEntry
 * @typedef {SamplePaperEntry & { preprintId: string, text: string, images: Record<string, Buffer>, pdf: Buffer,
 *   zip: Buffer }} SamplePaper
 */

/** @returns {SamplePaper[]} */
export function samplePapers() {
  /** @type {{ papers: SamplePaperEntry[] }} */
  const index = JSON.parse(readFileSync(new URL('papers.json', DIR), 'utf8'));
  return index.papers.map((entry) => {
    const text = readFileSync(new URL(entry.markdown, DIR), 'utf8');
    const images = Object.fromEntries(Object.entries(entry.figures).map(([name, kind]) => [name, FIGURES[kind]()]));
    return {
      ...entry,
      preprintId: `${entry.id}v${entry.version}`,
      text,
      images,
      pdf: textPdf(entry, text),
      zip: resultZip(text, images, entry.id.replace('/', '-') + `v${entry.version}`),
    };
  });
}

// ---- Figures: a small raster canvas, then PNG ----------------------------------------------------------------

const WHITE = [255, 255, 255];
const INK = [36, 41, 47];
const GRID = [216, 222, 228];
const BLUE = [9, 105, 218];
const ORANGE = [207, 106, 19];

function canvas(width, height) {
  const px = new Uint8Array(width * height * 3).fill(255);
  const set = (x, y, c) => {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    px.set(c, (y * width + x) * 3);
  };
  const rect = (x0, y0, x1, y1, c) => {
    for (let y = Math.round(y0); y < Math.round(y1); y++)
      for (let x = Math.round(x0); x < Math.round(x1); x++) set(x, y, c);
  };
  const line = (x0, y0, x1, y1, c, width = 2) => {
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1) * 2;
    for (let i = 0; i <= steps; i++) {
      const x = x0 + ((x1 - x0) * i) / steps;
      const y = y0 + ((y1 - y0) * i) / steps;
      rect(x - width / 2, y - width / 2, x + width / 2, y + width / 2, c);
    }
  };
  const frame = (x0, y0, x1, y1, c, width = 2) => {
    line(x0, y0, x1, y0, c, width);
    line(x1, y0, x1, y1, c, width);
    line(x1, y1, x0, y1, c, width);
    line(x0, y1, x0, y0, c, width);
  };
  const png = () =>
    makePng(width, height, (x, y) => {
      const i = (y * width + x) * 3;
      return [px[i], px[i + 1], px[i + 2]];
    });
  return { rect, line, frame, png };
}

/** Axes with grid lines: the plot area is [left, right] × [top, bottom]. */
function axes(c, { left, right, top, bottom }, xTicks, yTicks) {
  for (let i = 0; i <= yTicks; i++) {
    const y = bottom - ((bottom - top) * i) / yTicks;
    c.line(left, y, right, y, GRID, 1);
  }
  for (let i = 0; i <= xTicks; i++) {
    const x = left + ((right - left) * i) / xTicks;
    c.line(x, bottom, x, bottom + 6, INK, 2);
  }
  c.line(left, top, left, bottom, INK, 2);
  c.line(left, bottom, right, bottom, INK, 2);
}

/** Shor, figure 2: the outcome distribution of order finding for q = 256, r = 10. */
function peaks() {
  const q = 256;
  const r = 10;
  const c = canvas(640, 360);
  const box = { left: 48, right: 624, top: 24, bottom: 320 };
  axes(c, box, 8, 4);
  const terms = Math.ceil(q / r);
  const p = [];
  for (let k = 0; k < q; k++) {
    let re = 0;
    let im = 0;
    for (let j = 0; j < terms; j++) {
      re += Math.cos((2 * Math.PI * k * j * r) / q);
      im += Math.sin((2 * Math.PI * k * j * r) / q);
    }
    p.push((re * re + im * im) / (q * terms));
  }
  const max = Math.max(...p);
  const w = (box.right - box.left) / q;
  p.forEach((v, k) => {
    const h = ((box.bottom - box.top) * v) / max;
    c.rect(box.left + k * w, box.bottom - h, box.left + (k + 1) * w - 0.5, box.bottom - 1, BLUE);
  });
  return c.png();
}

/** Shor, figure 1: two registers, Hadamards, modular exponentiation, inverse QFT and measurements. */
function circuit() {
  const c = canvas(640, 300);
  const wires = [40, 80, 120, 160, 220, 260];
  for (const y of wires) c.line(24, y, 616, y, INK, 2);
  for (const y of wires.slice(0, 4)) {
    c.rect(70, y - 14, 98, y + 14, WHITE);
    c.frame(70, y - 14, 98, y + 14, INK);
    c.line(78, y - 6, 78, y + 6, INK, 2);
    c.line(90, y - 6, 90, y + 6, INK, 2);
    c.line(78, y, 90, y, INK, 2);
  }
  c.rect(170, 24, 300, 276, [221, 244, 255]);
  c.frame(170, 24, 300, 276, BLUE, 3);
  c.rect(360, 24, 470, 176, [255, 241, 229]);
  c.frame(360, 24, 470, 176, ORANGE, 3);
  for (const y of wires.slice(0, 4)) {
    c.rect(520, y - 14, 556, y + 14, WHITE);
    c.frame(520, y - 14, 556, y + 14, INK);
    for (let a = Math.PI; a <= 2 * Math.PI; a += 0.05)
      c.rect(538 + 12 * Math.cos(a), y + 6 + 12 * Math.sin(a), 539 + 12 * Math.cos(a), y + 7 + 12 * Math.sin(a), INK);
    c.line(538, y + 6, 550, y - 8, INK, 2);
  }
  return c.png();
}

/** Grover, figure 1: sin²((2k+1)θ) for N = 256, k = 0 … 40. */
function oscillation() {
  const n = 256;
  const kMax = 40;
  const theta = Math.asin(1 / Math.sqrt(n));
  const c = canvas(640, 360);
  const box = { left: 48, right: 624, top: 24, bottom: 320 };
  axes(c, box, 8, 4);
  const x = (k) => box.left + ((box.right - box.left) * k) / kMax;
  const y = (v) => box.bottom - (box.bottom - box.top) * v;
  const f = (k) => Math.sin((2 * k + 1) * theta) ** 2;
  for (let k = 0; k < kMax; k++) c.line(x(k), y(f(k)), x(k + 1), y(f(k + 1)), BLUE, 3);
  for (let k = 0; k <= kMax; k++) c.rect(x(k) - 4, y(f(k)) - 4, x(k) + 4, y(f(k)) + 4, ORANGE);
  return c.png();
}

/** QAOA, figure 1: F₁(γ, β) of MaxCut on a ring of four vertices, by state-vector simulation. */
function landscape() {
  const n = 4;
  const edges = [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 0],
  ];
  const cut = (z) => edges.filter(([a, b]) => ((z >> a) & 1) !== ((z >> b) & 1)).length;
  const expectation = (gamma, beta) => {
    const dim = 1 << n;
    let re = Array.from({ length: dim }, (_, z) => Math.cos(-gamma * cut(z)) / Math.sqrt(dim));
    let im = Array.from({ length: dim }, (_, z) => Math.sin(-gamma * cut(z)) / Math.sqrt(dim));
    // e^{-iβX} on each qubit: cos β · I − i sin β · X.
    for (let q = 0; q < n; q++) {
      const nr = re.slice();
      const ni = im.slice();
      for (let z = 0; z < dim; z++) {
        const o = z ^ (1 << q);
        nr[z] = Math.cos(beta) * re[z] + Math.sin(beta) * im[o];
        ni[z] = Math.cos(beta) * im[z] - Math.sin(beta) * re[o];
      }
      re = nr;
      im = ni;
    }
    return re.reduce((sum, r, z) => sum + (r * r + im[z] * im[z]) * cut(z), 0);
  };
  const cols = 160;
  const rows = 80;
  const cell = 4;
  const values = [];
  for (let j = 0; j < rows; j++)
    for (let i = 0; i < cols; i++) values.push(expectation((Math.PI * i) / cols, ((Math.PI / 2) * j) / rows));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const stops = [
    [13, 8, 135],
    [126, 3, 168],
    [204, 71, 120],
    [248, 149, 64],
    [240, 249, 33],
  ];
  const colour = (v) => {
    const t = ((v - lo) / (hi - lo)) * (stops.length - 1);
    const i = Math.min(Math.floor(t), stops.length - 2);
    const f = t - i;
    return stops[i].map((a, k) => Math.round(a + (stops[i + 1][k] - a) * f));
  };
  const c = canvas(cols * cell + 32, rows * cell + 32);
  values.forEach((v, idx) => {
    const i = idx % cols;
    const j = Math.floor(idx / cols);
    c.rect(16 + i * cell, 16 + j * cell, 16 + (i + 1) * cell, 16 + (j + 1) * cell, colour(v));
  });
  c.frame(15, 15, 17 + cols * cell, 17 + rows * cell, INK);
  return c.png();
}

const FIGURES = { peaks, circuit, oscillation, landscape };

// ---- A text PDF: title, authors, abstract and the markdown's text --------------------------------------------

/** PDF text: Latin-1 (WinAnsi) with the string delimiters escaped; anything else as `?`. */
const pdfString = (s) =>
  s
    .normalize('NFKC')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
    .replace(/[\\()]/g, (c) => `\\${c}`);

const wrap = (text, width) =>
  text
    .replace(new RegExp(`(.{1,${width}})(?:\\s+|$)`, 'g'), '$1\n')
    .trimEnd()
    .split('\n');

/** A one-column, A4 PDF 1.4 of the paper: Helvetica, the markdown as text (equations in their TeX source). */
export function textPdf(paper, markdown) {
  /** @type {{ size: number, bold?: boolean, text: string, gap?: number }[]} */
  const lines = [];
  for (const l of wrap(paper.title, 60)) lines.push({ size: 17, bold: true, text: l });
  lines.push({ size: 11, text: paper.authors.join(', '), gap: 10 });
  lines.push({ size: 9, text: `arXiv:${paper.id}v${paper.version}  (${paper.published})`, gap: 4 });
  lines.push({ size: 11, bold: true, text: 'Abstract', gap: 16 });
  for (const l of wrap(paper.abstract, 95)) lines.push({ size: 10, text: l });
  const body = markdown.split(/\n{2,}/).slice(2);
  for (const block of body) {
    if (block.startsWith('![')) continue;
    const heading = /^#+\s+(.*)/.exec(block);
    if (heading) lines.push({ size: 12, bold: true, text: heading[1], gap: 14 });
    else wrap(block.replace(/\s+/g, ' '), 95).forEach((l, i) => lines.push({ size: 10, text: l, gap: i ? 0 : 6 }));
  }
  const pages = [];
  let ops = [];
  let y = 790;
  for (const line of lines) {
    const lead = line.size * 1.35 + (line.gap ?? 0);
    if (y - lead < 60) {
      pages.push(ops);
      ops = [];
      y = 790;
    }
    y -= lead;
    ops.push(`BT /${line.bold ? 'F2' : 'F1'} ${line.size} Tf 56 ${y.toFixed(1)} Td (${pdfString(line.text)}) Tj ET`);
  }
  pages.push(ops);

  const objects = [];
  const add = (body) => objects.push(body) && objects.length;
  const catalog = add('');
  const pageTree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const kids = pages.map((page) => {
    const content = deflateSync(Buffer.from(page.join('\n'), 'latin1')).toString('latin1');
    const stream = add(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n${content}\nendstream`);
    return add(
      `<< /Type /Page /Parent ${pageTree} 0 R /MediaBox [0 0 595 842] /Contents ${stream} 0 R ` +
        `/Resources << /Font << /F1 ${font} 0 R /F2 ${bold} 0 R >> >> >>`,
    );
  });
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pageTree} 0 R >>`;
  objects[pageTree - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = add(`<< /Title (${pdfString(paper.title)}) /Author (${pdfString(paper.authors.join(', '))}) >>`);

  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets = objects.map((body, i) => {
    const at = Buffer.byteLength(out, 'latin1');
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
