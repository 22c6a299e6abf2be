import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';

/** Paper endpoints: stats, needs-parser, uploads and claims. */
export async function paperRoutes(_app: FastifyInstance, _opts: { ctx: AppContext }): Promise<void> {}
