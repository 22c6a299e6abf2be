/**
 * A Node module loader for running the project's TypeScript without a build (the development upstreams, and
 * test servers that run in a child process): `.ts` files are transpiled with the project's own `typescript`
 * (no type check), and `./x.js` imports resolve to `./x.ts` when only the TypeScript file exists.
 * Register it with `node --import <this dir>/ts-register.mjs <entry>.ts`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Transpiled files by content hash (a child server re-reads the same sources on every start). */
const CACHE = fileURLToPath(new URL('../../../.cache/ts-loader/', import.meta.url));

export async function resolve(specifier, context, next) {
  if ((specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:')) && context.parentURL) {
    const url = new URL(specifier, context.parentURL);
    if (url.pathname.endsWith('.js') && !existsSync(fileURLToPath(url))) {
      const candidate = new URL(url.href.replace(/\.js$/, '.ts'));
      if (existsSync(fileURLToPath(candidate))) return { url: candidate.href, shortCircuit: true, format: 'module' };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const source = await readFile(file, 'utf8');
  const cached = path.join(CACHE, `${createHash('sha256').update(file).update('\0').update(source).digest('hex')}.js`);
  if (existsSync(cached)) return { format: 'module', source: await readFile(cached, 'utf8'), shortCircuit: true };
  const out = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
      inlineSourceMap: true,
    },
  });
  await mkdir(CACHE, { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  await writeFile(tmp, out.outputText);
  await rename(tmp, cached);
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
