/**
 * The built client keeps Node's compile cache in its cache directory (`$XDG_CACHE_HOME/pks`, else `~/.cache/pks`),
 * and loads only the `wiki` subcommand a command line names: the runs, their output and the group's help are those
 * of a client that loads everything.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pks, type PksHome } from '../support/pks.js';
import { makeSampleWikiHome } from '../support/sample-wiki.js';

let h: PksHome;
beforeEach(() => {
  ({ h } = makeSampleWikiHome());
});
afterEach(() => h.cleanup());

const SUBCOMMANDS = ['list', 'show', 'search', 'links', 'lint', 'stats', 'create', 'ingest'];

describe('client start-up', () => {
  it('writes the compile cache under ~/.cache/pks and answers alike from it', async () => {
    const first = await pks(h, ['wiki', 'search', 'qubit', '--limit', '3']);
    expect(first.code).toBe(0);
    const dir = path.join(h.home, '.cache', 'pks', 'node-compile-cache');
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    const second = await pks(h, ['wiki', 'search', 'qubit', '--limit', '3']);
    expect(second).toMatchObject({ code: 0, stdout: first.stdout, stderr: '' });
  });

  it('follows XDG_CACHE_HOME, and a cache location that cannot be a directory is no error', async () => {
    const xdg = path.join(h.home, 'xdg-cache');
    const run = await pks(h, ['wiki', 'stats'], { env: { XDG_CACHE_HOME: xdg } });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(xdg, 'pks', 'node-compile-cache'))).toBe(true);

    const file = path.join(h.home, 'not-a-directory');
    writeFileSync(file, 'x');
    const blocked = await pks(h, ['wiki', 'stats'], { env: { XDG_CACHE_HOME: file } });
    expect(blocked).toMatchObject({ code: 0, stdout: run.stdout, stderr: '' });
  });

  it('lists every wiki subcommand in the group help, however it is asked for', async () => {
    const help = await pks(h, ['wiki', '--help']);
    expect(help.code).toBe(0);
    for (const name of SUBCOMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    for (const args of [
      ['help', 'wiki'],
      ['wiki', 'help'],
      ['wiki', '-h'],
    ]) {
      expect(await pks(h, args)).toMatchObject({ code: 0, stdout: help.stdout });
    }
    // A subcommand's own help is the same whether the others are loaded or not.
    const search = await pks(h, ['wiki', 'search', '--help']);
    expect(await pks(h, ['wiki', 'help', 'search'])).toMatchObject({ code: 0, stdout: search.stdout });
  });
});
