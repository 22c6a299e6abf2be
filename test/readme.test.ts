import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_TABLE_BEGIN, README_TABLE_END, settingsMarkdownTable } from '../src/server/config/docs.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('the settings table matches the config module (regenerate with `npm run docs:settings`)', () => {
    const start = readme.indexOf(README_TABLE_BEGIN);
    const end = readme.indexOf(README_TABLE_END);
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start + README_TABLE_BEGIN.length, end).trim()).toBe(settingsMarkdownTable());
  });

  it('opens with the two commands: start the server, run the tests', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks[0]).toBe('./scripts/dev-server.sh');
    expect(blocks[1]).toBe('./scripts/test-all.sh');
  });
});
