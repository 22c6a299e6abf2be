import { createReadStream } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../../shared/domain-errors.js';
import { VERSION } from '../../shared/version.js';
import type { Config } from '../config/types.js';
import { PackageTarball } from '../distribution/package-tarball.js';
import { forwardedOrigin } from '../http/client.js';
import type { RoutePlugin } from '../http/context.js';
import { PUBLIC } from './guard.js';
import { installerScript } from './installer-script.js';
import { ErrorBody } from './schemas.js';

/** The one tarball this server offers: its own package at its own version. */
export const TARBALL_NAME = `pks-${VERSION}.tgz`;
/** Its SHA-256 in `sha256sum` format, which the installer checks before installing (issue 20). */
export const CHECKSUM_NAME = `${TARBALL_NAME}.sha256`;

/** `http://<SVC_HTTP_ADDR>` when it names one host (not `0.0.0.0`/`::`, which name none), else `null`. */
function listenOrigin(listen: Config['listen']): string | null {
  const { host, port } = listen;
  if (host === '' || host === '0.0.0.0' || host === '::' || host === '[::]') return null;
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * The server URL the script downloads from (issue 20): `SVC_PUBLIC_URL`; else the origin a trusted proxy forwarded
 * (§1.2); else the listen address; else none (the script then needs `--server`). Never the request's own `Host`:
 * the script is cached publicly and runs as whoever pipes it to `sh`, so a forged `Host` must not choose where the
 * package comes from. Behind a proxy that is not trusted the listen address is the server's own, not one the user
 * can reach: such a deployment sets `SVC_PUBLIC_URL` (docs/decisions.md).
 */
export function installerServerUrl(config: Config, request: FastifyRequest): string {
  return config.publicUrl ?? forwardedOrigin(request, request.server.proxyTrust) ?? listenOrigin(config.listen) ?? '';
}

/**
 * `GET /install-pksd.sh` (CONTRACT §8.5), filled in with this server's public base so that it installs, by default,
 * the package this server offers at `GET /dist/pks-<version>.tgz` (issue 13), checked against
 * `GET /dist/pks-<version>.tgz.sha256` (issue 20).
 */
export const installerRoutes: RoutePlugin = async (app, { ctx }) => {
  // The script depends on the forwarded headers only when a proxy is trusted; never on `Host`.
  const vary = ctx.config.trustedProxies.length > 0 ? 'X-Forwarded-Host, X-Forwarded-Proto' : null;
  app.get(
    '/install-pksd.sh',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Server installation script (POSIX sh)',
        tags: ['meta'],
        produces: ['text/x-shellscript'],
        response: { 200: Type.String({ description: 'the script' }) },
      },
    },
    async (request, reply) => {
      reply.type('text/x-shellscript; charset=utf-8').header('Cache-Control', 'public, max-age=300');
      if (vary !== null && ctx.config.publicUrl === null) reply.header('Vary', vary);
      return reply.send(installerScript(VERSION, installerServerUrl(ctx.config, request)));
    },
  );

  const tarball = new PackageTarball({ dir: path.join(ctx.config.dataDir, 'dist'), fileName: TARBALL_NAME });
  app.get(
    '/dist/:file',
    {
      config: { guard: PUBLIC },
      schema: {
        summary:
          "This server's own package (`npm pack` tarball), which /install-pksd.sh installs, and its SHA-256 " +
          '(`<tarball>.sha256`, sha256sum format), which the script checks first',
        tags: ['meta'],
        produces: ['application/gzip', 'text/plain'],
        params: Type.Object({ file: Type.String({ description: `\`${TARBALL_NAME}\` or \`${CHECKSUM_NAME}\`` }) }),
        response: {
          200: Type.Unsafe<Readable | string>({
            type: 'string',
            format: 'binary',
            description: 'the tarball (application/gzip), or `<sha256 hex>  <tarball>\\n` (text/plain)',
          }),
          404: { ...ErrorBody, description: 'not the tarball of this server’s version (or its checksum)' },
          503: { ...ErrorBody, description: 'the server cannot pack its package (no npm, or npm pack failed)' },
        },
      },
    },
    async (request, reply) => {
      const { file: name } = request.params;
      if (name !== TARBALL_NAME && name !== CHECKSUM_NAME) throw new NotFoundError('not found');
      const file = await tarball.file();
      if (name === CHECKSUM_NAME) {
        return reply
          .type('text/plain; charset=utf-8')
          .header('Cache-Control', 'public, max-age=300')
          .send(`${file.sha256}  ${TARBALL_NAME}\n`);
      }
      return reply
        .type('application/gzip')
        .header('Content-Length', String(file.size))
        .header('Content-Disposition', `attachment; filename="${TARBALL_NAME}"`)
        .header('Cache-Control', 'public, max-age=300')
        .send(createReadStream(file.path));
    },
  );
};
