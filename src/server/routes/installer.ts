import { Type } from '@sinclair/typebox';
import { VERSION } from '../../shared/version.js';
import type { RoutePlugin } from '../http/context.js';
import { PUBLIC } from './guard.js';
import { installerScript } from './installer-script.js';

/** `GET /install-pksd.sh` (CONTRACT §8.5). */
export const installerRoutes: RoutePlugin = async (app) => {
  const script = installerScript(VERSION);
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
    async (_request, reply) =>
      reply.type('text/x-shellscript; charset=utf-8').header('Cache-Control', 'public, max-age=300').send(script),
  );
};
