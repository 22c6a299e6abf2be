/** Papers stored through the real upload routes, for the registry read tests (figures, images/zip). */
import { expect } from 'vitest';
import { makeZip } from './zip.js';
import { multipart, pdfBytes } from './helpers.js';

/** Anything with a `fetch` on a running pksd and the credential to use. */
export interface Target {
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  readonly auth: Record<string, string>;
}

async function post(t: Target, path: string, name: string, content: Buffer, contentType: string): Promise<void> {
  const { body, contentType: type } = multipart([{ name, filename: `${name}.bin`, content, contentType }]);
  const res = await t.fetch(path, { method: 'POST', headers: { ...t.auth, 'Content-Type': type }, body });
  expect([path, res.status]).toEqual([path, 201]);
}

/** Uploads a PDF and, when `markdown` is given, a parser bundle with `images` (name → bytes). */
export async function storePaper(
  t: Target,
  id: string,
  markdown: string | null,
  images: Record<string, Buffer | string> = {},
): Promise<void> {
  await post(t, `/api/papers/${id}/upload-pdf`, 'pdf', pdfBytes(id), 'application/pdf');
  if (markdown === null) return;
  const zip = makeZip([
    { name: 'full.md', content: markdown },
    ...Object.entries(images).map(([name, content]) => ({ name: `images/${name}`, content })),
  ]);
  await post(t, `/api/papers/${id}/upload-parser`, 'parser_zip', zip, 'application/zip');
}
