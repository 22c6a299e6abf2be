import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>pks — paper knowledge service</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><div id="root"><h1>pks</h1><p>The paper knowledge service is running. The web front end is not built into this
server yet.</p><ul><li><a href="/api/health">/api/health</a> — health</li>
<li><a href="/swagger/index.html">/swagger/index.html</a> — API reference</li></ul></div></body></html>
`;

/** Vite names every file under `assets/` by a hash of its content, so it never changes at that URL. */
const HASHED_DIR = 'assets' + path.sep;

/**
 * Hashed assets are cached for a year without revalidation; everything else (`index.html`, which names the
 * current assets, and the public files) is revalidated on every use (ETag / Last-Modified, then 304).
 */
const cacheControlOf = (relative: string): string =>
  relative.startsWith(HASHED_DIR) ? 'public, max-age=31536000, immutable' : 'no-cache';

/**
 * The single-page app: static files from `webRoot`, else its `index.html` for any other path (client-side
 * routing), else a placeholder page. Called by the not-found handler for non-API GETs only.
 */
export async function spaRoutes(
  app: FastifyInstance,
  webRoot: string,
): Promise<{ spaFallback: (reply: FastifyReply) => FastifyReply }> {
  const root = path.resolve(webRoot);
  const hasIndex = existsSync(path.join(root, 'index.html'));
  if (hasIndex) {
    await app.register(fastifyStatic, {
      root,
      serve: false,
      // The build writes `.br` and `.gz` copies (web/precompress.ts): served as they are, with `Vary`.
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, file) => reply.header('Cache-Control', cacheControlOf(path.relative(root, file))),
    });
  }

  const spaFallback = (reply: FastifyReply): FastifyReply => {
    if (!hasIndex) return reply.type('text/html; charset=utf-8').send(PLACEHOLDER);
    const urlPath = decodeURIComponent((reply.request.url.split('?')[0] ?? '/').replace(/\+/g, ' '));
    const file = path.resolve(root, '.' + path.posix.normalize(urlPath));
    if (file.startsWith(root + path.sep) && existsSync(file) && statSync(file).isFile()) {
      return reply.sendFile(path.relative(root, file), root);
    }
    return reply.type('text/html; charset=utf-8').sendFile('index.html', root);
  };
  return { spaFallback };
}
