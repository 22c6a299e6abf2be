import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../shared/domain-errors.js';
import { VERSION } from '../../shared/version.js';
import { PackageTarball } from '../distribution/package-tarball.js';
import { publicBase } from '../http/client.js';
import type { RoutePlugin } from '../http/context.js';
import { PUBLIC } from './guard.js';
import { installerScript } from './installer-script.js';
import { ErrorBody } from './schemas.js';

/** The one tarball this server offers: its own package at its own version. */
export const TARBALL_NAME = `pks-${VERSION}.tgz`;

/**
 * `GET /install-pksd.sh` (CONTRACT §8.5), filled in with this server's public base so that it installs, by default,
 * the package this server offers at `GET /dist/pks-<version>.tgz` (issue 13).
 */
export const installerRoutes: RoutePlugin = async (app, { ctx }) => {
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
    async (request, reply) =>
      reply
        .type('text/x-shellscript; charset=utf-8')
        .header('Cache-Control', 'public, max-age=300')
        // The script names the origin the client used (unless SVC_PUBLIC_URL fixes it).
        .header('Vary', 'Host')
        .send(installerScript(VERSION, publicBase(ctx.config.publicUrl, request))),
  );

  const tarball = new PackageTarball({ dir: path.join(ctx.config.dataDir, 'dist'), fileName: TARBALL_NAME });
  app.get(
    '/dist/:file',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: "This server's own package (`npm pack` tarball), which /install-pksd.sh installs",
        tags: ['meta'],
        produces: ['application/gzip'],
        params: Type.Object({ file: Type.String({ description: `\`${TARBALL_NAME}\`` }) }),
        response: {
          200: Type.Unsafe<Readable>({
            type: 'string',
            format: 'binary',
            description: 'the tarball (application/gzip)',
          }),
          404: { ...ErrorBody, description: 'not the tarball of this server’s version' },
          503: { ...ErrorBody, description: 'the server cannot pack its package (no npm, or npm pack failed)' },
        },
      },
    },
    async (request, reply) => {
      if (request.params.file !== TARBALL_NAME) throw new NotFoundError('not found');
      const file = await tarball.file();
      return reply
        .type('application/gzip')
        .header('Content-Length', String(file.size))
        .header('Content-Disposition', `attachment; filename="${TARBALL_NAME}"`)
        .header('Cache-Control', 'public, max-age=300')
        .send(createReadStream(file.path));
    },
  );
};
