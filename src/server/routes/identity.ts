import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';
import { adminRoutes } from './admin.js';
import { pocketbaseRoutes } from './auth-pocketbase.js';
import { deviceRoutes } from './device.js';
import { patRoutes } from './pat.js';

/** PAT management, device flow, PocketBase-compatible login routes and the admin UI. */
export async function identityRoutes(app: FastifyInstance, opts: { ctx: AppContext }): Promise<void> {
  await patRoutes(app, opts);
  await deviceRoutes(app, opts);
  await pocketbaseRoutes(app, opts);
  await adminRoutes(app, opts);
}
