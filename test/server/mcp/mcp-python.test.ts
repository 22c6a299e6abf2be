/**
 * A second, independent MCP client (CONTRACT §20): the official Python `mcp` package of the project venv reads a
 * paper through pksd's `/mcp` over Streamable HTTP, piece by piece following the continuation hints, until the
 * whole markdown is reassembled byte for byte (astral characters, CRLF lines and a line longer than a piece).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { accessEnv, startDoubles, type Doubles } from '../access/support/harness.js';
import { storePaper } from '../papers/registry-support.js';
import { VENV_PYTHON } from '../../support/python.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const run = promisify(execFile);
const PAT = 'mcp-python-system-pat-0123456789';
const ID = '2507.00301v1';
const SCRIPT = path.join(import.meta.dirname, 'mcp_read_paper.py');

/** About 300 KB: sections of prose with 𝜓 (outside the BMP), CRLF lines, a table and one 5,000-character line. */
const MARKDOWN = [
  '# Reading a long paper 𝜓',
  '',
  ...Array.from({ length: 60 }, (_, s) => [
    `## Section ${s}`,
    '',
    ...Array.from({ length: 40 }, (_, i) => `Sentence ${i} of section ${s}: |𝜓⟩ = α|0⟩ + β|1⟩, naïve café — ok.`),
    s % 7 === 0 ? 'A CRLF line\r\nand another\r' : '| a | b |\n|---|---|\n| 1 | 2 |',
    '',
  ]).flat(),
  'x'.repeat(5000),
  'The end.',
  '',
].join('\n');

let d: Doubles;
let srv: TestServer;

beforeAll(async () => {
  d = await startDoubles();
  srv = await startTestServer({ ...accessEnv(d), SVC_SYSTEM_PAT: PAT });
  await storePaper({ fetch: srv.fetch, auth: { Authorization: `Bearer ${PAT}` } }, ID, MARKDOWN);
}, 60_000);
afterAll(async () => {
  await srv?.close();
  await d?.close();
});

it('the Python MCP client reassembles the whole markdown byte for byte', async () => {
  const stored = Buffer.from(
    await (
      await srv.fetch(`/api/papers/${ID}/markdown`, { headers: { Authorization: `Bearer ${PAT}` } })
    ).arrayBuffer(),
  );
  expect(stored.equals(Buffer.from(MARKDOWN, 'utf8'))).toBe(true);
  const { stdout, stderr } = await run(VENV_PYTHON, [SCRIPT, `${srv.url}/mcp`, PAT, ID, '4000'], {
    encoding: 'buffer',
    maxBuffer: 16 * 1024 * 1024,
  });
  expect(Buffer.compare(stdout, stored)).toBe(0);
  const pieces = Number(/^(\d+) pieces$/m.exec(stderr.toString())?.[1]);
  expect(pieces).toBeGreaterThanOrEqual(Math.ceil([...MARKDOWN].length / 4000));
}, 120_000);
