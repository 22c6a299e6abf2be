import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../shared/version.js';
import { PUBLIC } from './guard.js';
import { installerScript } from './installer-script.js';

export async function installerRoutes(app: FastifyInstance): Promise<void> {
  const script = installerScript(VERSION);
  app.get(
    '/install-pksd.sh',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Server installation script (POSIX sh)',
        tags: ['meta'],
        produces: ['text/x-shellscript'],
        response: { 200: Type.String() },
      },
    },
    async (_request, reply) =>
      reply.type('text/x-shellscript; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(script),
  );
}
