import { MIGRATIONS } from '../../../src/server/db/migrations.js';

/** The newest schema version this pksd knows (both backends number their migrations alike). */
export const NEWEST_SCHEMA = Math.max(...MIGRATIONS.map((m) => m.version));
