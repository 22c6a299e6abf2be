/**
 * One KaTeX for the formulas and their stylesheet. rehype-katex renders with the `katex` it resolves, the page loads
 * `katex/dist/katex.min.css` from the `katex` the front end resolves; KaTeX renames classes between minor versions,
 * so two copies typeset formulas the stylesheet does not style (full-size superscripts, unstacked fractions).
 * package.json pins `katex` and `overrides` it for every dependant; this check fails the build if they drift apart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/** The installed KaTeX packages (directory → version) that the given module files belong to. */
export function katexPackages(moduleIds: Iterable<string>): Map<string, string> {
  const found = new Map<string, string>();
  for (const id of moduleIds) {
    // The last `node_modules/katex/` in the path is the package the file belongs to.
    const match = /^(.*[\\/]node_modules[\\/]katex)[\\/]/.exec(id.replace(/^\0/, '').split('?')[0] ?? '');
    const dir = match?.[1];
    if (dir === undefined || found.has(dir)) continue;
    const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
    found.set(dir, version);
  }
  return found;
}

/** The problem with the KaTeX packages a build bundles, or null when there is at most one. */
export function katexMismatch(packages: ReadonlyMap<string, string>): string | null {
  if (packages.size <= 1) return null;
  const list = [...packages].map(([dir, version]) => `katex ${version} (${dir})`).join(', ');
  return (
    `the build bundles more than one KaTeX: ${list}. rehype-katex must render with the KaTeX whose stylesheet the ` +
    'page loads: pin one version of `katex` in package.json (its `overrides` entry makes every dependant use it) and ' +
    'run npm install.'
  );
}

/** Fails the build when its modules come from more than one KaTeX package. */
export function katexVersionCheck(): Plugin {
  return {
    name: 'pks-katex-version',
    apply: 'build',
    buildEnd(error) {
      if (error) return;
      const problem = katexMismatch(katexPackages(this.getModuleIds()));
      if (problem) this.error(problem);
    },
  };
}
