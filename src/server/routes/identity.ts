import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';

/** PAT management, device flow, PocketBase-compatible login routes and the admin UI. */
export async function identityRoutes(_app: FastifyInstance, _opts: { ctx: AppContext }): Promise<void> {}
