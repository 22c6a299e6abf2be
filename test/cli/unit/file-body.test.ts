/**
 * File request bodies (`src/cli/http/transport.ts`): sent byte for byte through two reused buffers while the
 * receiver lags behind, read anew on every send, refused when the file shrank; and the chunked file hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../../src/cli/errors.js';
import { sha256File } from '../../../src/cli/hash.js';
import { send, type PartsBody } from '../../../src/cli/http/transport.js';

const MiB = 1024 * 1024;
let dir: string;
let server: http.Server;
let url: URL;
/** Complete request bodies, in arrival order. */
const received: Buffer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'pks-file-body-'));
  // A receiver slower than the sender: every chunk it reads waits a little, so with a body larger than the
  // loopback socket buffers the sender's writes complete late (a buffer reused too early corrupts the body).
  server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of req as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          await delay(1);
        }
      } catch {
        return; // the client gave up mid-body
      }
      received.push(Buffer.concat(chunks));
      res.end('ok');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function fileOf(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

async function post(body: PartsBody, onUploadProgress?: (sent: number) => void) {
  const res = await send({
    url,
    method: 'POST',
    body,
    timeoutMs: 30_000,
    ...(onUploadProgress ? { onUploadProgress } : {}),
  });
  return { status: res.status, text: await res.text() };
}

describe('file bodies', () => {
  it('arrive byte for byte behind a slow receiver; progress rises to the total', async () => {
    const content = randomBytes(24 * MiB + 12345); // more than the kernel buffers of both ends hold
    const head = Buffer.from('--head--\r\n');
    const tail = Buffer.from('\r\n--tail--\r\n');
    const body: PartsBody = {
      length: head.length + content.length + tail.length,
      parts: [head, { path: fileOf('big.bin', content), size: content.length }, tail],
    };
    const progress: number[] = [];
    const before = received.length;
    expect(await post(body, (sent) => progress.push(sent))).toEqual({ status: 200, text: 'ok' });
    const got = received[before]!;
    expect(got.length).toBe(body.length);
    expect(got.equals(Buffer.concat([head, content, tail]))).toBe(true);
    expect(progress.at(-1)).toBe(body.length);
    expect(progress.every((sent, i) => i === 0 || sent > progress[i - 1]!)).toBe(true);
  });

  it('are read from disk again on every send', async () => {
    const file = fileOf('again.bin', Buffer.from('first content'));
    const body: PartsBody = { length: 13, parts: [{ path: file, size: 13 }] };
    const before = received.length;
    await post(body);
    writeFileSync(file, 'other content');
    await post(body);
    expect(received.slice(before).map(String)).toEqual(['first content', 'other content']);
  });

  it('send only the declared size of a file that grew', async () => {
    const file = fileOf('grew.bin', Buffer.from('0123456789'));
    const before = received.length;
    await post({ length: 4, parts: [{ path: file, size: 4 }] });
    expect(String(received[before])).toBe('0123');
  });

  it('fail with a TransportError when the file is shorter than declared', async () => {
    const file = fileOf('short.bin', Buffer.from('only ten b'));
    const sending = post({ length: 20, parts: [{ path: file, size: 20 }] });
    await expect(sending).rejects.toBeInstanceOf(TransportError);
    await expect(sending).rejects.toThrow(`${file} became shorter while it was being sent`);
  });

  it('fail with a TransportError when the file is missing', async () => {
    const file = path.join(dir, 'nope.bin');
    await expect(post({ length: 1, parts: [{ path: file, size: 1 }] })).rejects.toThrow(
      new TransportError(`ENOENT: no such file or directory, open '${file}'`),
    );
  });
});

describe('sha256File', () => {
  it.each([0, 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 7])('a file of %i bytes hashes like its bytes', async (size) => {
    const bytes = randomBytes(size);
    const expected = createHash('sha256').update(bytes).digest('hex');
    expect(await sha256File(fileOf(`h${size}.bin`, bytes))).toBe(expected);
  });
});
