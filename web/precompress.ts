/**
 * Build step: writes `<file>.br` and `<file>.gz` beside every compressible file of the build, at the highest
 * levels (done once per build, not per request). pksd serves them to clients that accept the encoding
 * (`@fastify/static` `preCompressed`, src/server/routes/spa.ts).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Text formats; fonts (woff2 is compressed already) and images are left alone. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map)$/;
/** Below this a compressed copy saves less than its own headers cost (the API's threshold too). */
const MIN_BYTES = 1024;

async function precompressFile(file: string): Promise<void> {
  const raw = await readFile(file);
  if (raw.length < MIN_BYTES) return;
  const [br, gzipped] = await Promise.all([
    brotli(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    }),
    gz(raw, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  // A copy that is not smaller would only cost a disk read.
  if (br.length < raw.length) await writeFile(`${file}.br`, br);
  if (gzipped.length < raw.length) await writeFile(`${file}.gz`, gzipped);
}

/** Writes the compressed copies of every compressible file under `dir`. */
export async function precompressDir(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && COMPRESSIBLE.test(e.name));
  await Promise.all(files.map((e) => precompressFile(path.join(e.parentPath, e.name))));
}

/** The Vite plugin: `precompressDir` over the build's output once it is written. */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'pks-precompress',
    apply: 'build',
    configResolved(config: ResolvedConfig) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // After the public directory is copied too (favicon.svg). A failed build has nothing to compress, and may have
    // written no directory at all: stay silent so the build's own error is the one reported.
    closeBundle: (error?: Error) => (error || !existsSync(outDir) ? undefined : precompressDir(outDir)),
  };
}
