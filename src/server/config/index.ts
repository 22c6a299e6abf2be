import os from 'node:os';
import type { ConfigInputs } from './load.js';

export { buildConfig, inspectConfig, resolveSettings } from './load.js';
export type { ConfigInputs, ResolvedSettings, ResolvedSetting } from './load.js';
export type * from './types.js';
export { SETTINGS, flagName, isSecret } from './settings.js';

/** The inputs of this process. This module is the only reader of `process.env`. */
export function processInputs(flags: ReadonlyMap<string, string>): ConfigInputs {
  return { flags, env: { ...process.env }, cwd: process.cwd(), home: os.homedir() };
}
