import type { RoutePlugin } from '../http/context.js';
import { adminRoutes } from './admin.js';
import { pocketbaseRoutes } from './auth-pocketbase.js';
import { deviceRoutes } from './device.js';
import { patRoutes } from './pat.js';

/** PAT management, device flow, PocketBase-compatible login routes and the admin UI. */
export const identityRoutes: RoutePlugin = async (app, opts) => {
  await app.register(patRoutes, opts);
  await app.register(deviceRoutes, opts);
  await app.register(pocketbaseRoutes, opts);
  await app.register(adminRoutes, opts);
};
