/**
 * One KaTeX for the formulas and their stylesheet (web/katex-version.ts): the installed tree resolves rehype-katex's
 * `katex` and the stylesheet's to the same pinned package, and the build check refuses a bundle drawing on two.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { katexMismatch, katexPackages } from '../../web/katex-version.js';
import { REPO_ROOT } from '../support/server.js';

/** The package directory of a file under its `dist/`. */
const packageDir = (file: string) => file.slice(0, file.lastIndexOf(`${path.sep}dist${path.sep}`));
const versionIn = async (dir: string) =>
  (JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;

describe('KaTeX: one version for renderer and stylesheet', () => {
  const temp: string[] = [];
  afterAll(() => Promise.all(temp.map((d) => rm(d, { recursive: true, force: true }))));

  it('rehype-katex renders with the KaTeX whose stylesheet the Markdown component imports, the pinned one', async () => {
    const fromMarkdown = createRequire(path.join(REPO_ROOT, 'web/src/components/markdown/Markdown.tsx'));
    const stylesheet = fromMarkdown.resolve('katex/dist/katex.min.css');
    const rehypeKatex = createRequire(fromMarkdown.resolve('rehype-katex'));
    const renderer = rehypeKatex.resolve('katex');
    expect(packageDir(renderer)).toBe(packageDir(stylesheet));
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
      overrides: Record<string, string>;
    };
    // Pinned exactly, and every dependant made to use it.
    expect(pkg.devDependencies['katex']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.overrides['katex']).toBe('$katex');
    expect(await versionIn(packageDir(renderer))).toBe(pkg.devDependencies['katex']);
  });

  it('the build check accepts modules from one KaTeX package and refuses two', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'pks-katex-'));
    temp.push(base);
    const top = path.join(base, 'node_modules/katex');
    const nested = path.join(base, 'node_modules/rehype-katex/node_modules/katex');
    for (const [dir, version] of [
      [top, '0.19.1'],
      [nested, '0.16.47'],
    ] as const) {
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'katex', version }));
    }
    const css = path.join(top, 'dist/katex.min.css');
    const one = katexPackages([css, path.join(top, 'dist/katex.mjs'), path.join(base, 'src/main.tsx')]);
    expect([...one]).toEqual([[top, '0.19.1']]);
    expect(katexMismatch(one)).toBeNull();

    const two = katexPackages([css, path.join(nested, 'dist/katex.mjs')]);
    expect(katexMismatch(two)).toBe(
      `the build bundles more than one KaTeX: katex 0.19.1 (${top}), katex 0.16.47 (${nested}). rehype-katex must ` +
        'render with the KaTeX whose stylesheet the page loads: pin one version of `katex` in package.json (its ' +
        '`overrides` entry makes every dependant use it) and run npm install.',
    );
  });
});
