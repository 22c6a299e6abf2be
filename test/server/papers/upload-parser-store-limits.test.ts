/**
 * Bundles a store cannot hold are refused during validation, before any write (400, nothing stored): image names
 * ending in the local store's metadata sidecar suffix, names too long for a file system, an image that is also a
 * directory. No error body names a server file-system path, not even a store failure's 500.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../../src/server/storage/object-store.js';
import { useMoto } from '../../support/moto.js';
import { AUTH, multipart, pdfBytes, stagedLeftovers, startBackend, uploadPdf, type Backend } from './helpers.js';
import { makeZip, type ZipEntrySpec } from './zip.js';

const moto = useMoto();

async function uploadZip(b: Backend, id: string, entries: readonly ZipEntrySpec[]) {
  const { body, contentType } = multipart([
    { name: 'parser_zip', filename: 'result.zip', content: makeZip(entries), contentType: 'application/zip' },
  ]);
  const res = await b.server.fetch(`/api/papers/${id}/upload-parser`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType },
    body,
  });
  return { status: res.status, text: await res.text() };
}

const md = { name: 'full.md', content: '# paper\n' };
const twentyLong = Array.from({ length: 20 }, (_, i) => String(i % 10).repeat(255)).join('/');

const REFUSED: [string, ZipEntrySpec[], string][] = [
  [
    'an image named like the sidecar of another image',
    [md, { name: 'images/a.png', content: 'A' }, { name: 'images/a.png.meta.json', content: '{"sha256":"forged"}' }],
    'invalid image name in zip: "images/a.png.meta.json" (ends in the reserved .meta.json)',
  ],
  [
    'a 20×255-character image path',
    [md, { name: `images/${twentyLong}`, content: 'x' }],
    `invalid image name in zip: "images/${twentyLong}" (longer than 900 bytes)`,
  ],
  [
    'a segment too long for a file name next to its sidecar',
    [md, { name: `images/${'n'.repeat(250)}`, content: 'x' }],
    `invalid image name in zip: "images/${'n'.repeat(250)}" (a path segment longer than 245 bytes)`,
  ],
  [
    'images/q.png and images/q.png/b.png',
    [md, { name: 'images/q.png', content: 'Q' }, { name: 'images/q.png/b.png', content: 'B' }],
    'image name is both a file and a directory in zip: "images/q.png"',
  ],
];

let seq = 0;
const freshId = () => `2503.${String(30000 + ++seq).padStart(5, '0')}v1`;

describe.each(['local', 's3'] as const)('bundles the store cannot hold (%s backend)', (backendName) => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend(backendName, moto());
  });
  afterAll(async () => {
    await b?.close();
  });

  it.each(REFUSED)('%s → 400 during validation, nothing stored, no server path', async (_label, entries, detail) => {
    const id = freshId();
    expect((await uploadPdf(b.server, id, pdfBytes(id))).status).toBe(201);
    const res = await uploadZip(b, id, entries);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ detail });
    for (const dir of [b.server.dir, os.tmpdir()]) expect(res.text).not.toContain(dir);
    const stem = id;
    const stored = [
      ...(await collect(b.store.list(`markdown/${id.slice(0, 4)}/${stem}`))),
      ...(await collect(b.store.list(`images/${id.slice(0, 4)}/${stem}/`))),
    ];
    expect(stored).toEqual([]);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });
});

describe('a failing local store', () => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend('local', null);
  });
  afterAll(async () => {
    await b?.close();
  });

  it('answers 500 with the store message, without the server path', async () => {
    const id = freshId();
    expect((await uploadPdf(b.server, id, pdfBytes(id))).status).toBe(201);
    // A file where the paper's image directory must go: the store's mkdir fails, naming the path.
    const imagesDir = path.join(b.server.config.rawDir, 'images', id.slice(0, 4));
    mkdirSync(path.dirname(imagesDir), { recursive: true });
    writeFileSync(imagesDir, 'in the way');
    const res = await uploadZip(b, id, [md, { name: 'images/a.png', content: 'A' }]);
    expect(res.status).toBe(500);
    const body = JSON.parse(res.text) as { detail: string };
    expect(body.detail).toMatch(/^object store error: /);
    expect(body.detail).toContain('<server path>');
    expect(res.text).not.toContain(b.server.config.rawDir);
    expect(res.text).not.toContain(os.tmpdir());
  });
});
