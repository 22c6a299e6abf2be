import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';

/** Wiki endpoints: pages, stats, search, sync status and pull. */
export async function wikiRoutes(_app: FastifyInstance, _opts: { ctx: AppContext }): Promise<void> {}
