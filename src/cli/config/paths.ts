import os from 'node:os';
import path from 'node:path';

/** The platform variables the client reads (CONTRACT §16.1); nothing else of the environment. */
export interface PlatformEnv {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly xdgConfigHome: string | undefined;
  readonly appData: string | undefined;
  /** Only for the cache directory (`pks wiki search`). */
  readonly xdgCacheHome?: string | undefined;
}

/** Reads `HOME`, `XDG_CONFIG_HOME`, `XDG_CACHE_HOME` and `APPDATA` now (paths are recomputed on each call). */
export function platformEnv(): PlatformEnv {
  return {
    platform: process.platform,
    home: process.env['HOME'] || os.homedir(),
    xdgConfigHome: process.env['XDG_CONFIG_HOME'],
    appData: process.env['APPDATA'],
    xdgCacheHome: process.env['XDG_CACHE_HOME'],
  };
}

/** The directory holding `config.yaml` and `hosts.yml` (CONTRACT §16.1 table). */
export function configDir(env: PlatformEnv = platformEnv()): string {
  if (env.platform === 'darwin') return path.join(env.home, 'Library', 'Application Support', 'pks');
  if (env.platform === 'win32') {
    return path.win32.join(env.appData || path.win32.join(env.home, 'AppData', 'Roaming'), 'pks');
  }
  if (env.xdgConfigHome) return path.join(env.xdgConfigHome, 'pks');
  return path.join(env.home, '.config', 'pks');
}

/** The directory of the client's disposable caches (the `wiki search` term table): the platform's cache location. */
export function cacheDir(env: PlatformEnv = platformEnv()): string {
  if (env.platform === 'darwin') return path.join(env.home, 'Library', 'Caches', 'pks');
  if (env.platform === 'win32') return path.win32.join(env.home, 'AppData', 'Local', 'pks', 'Cache');
  if (env.xdgCacheHome) return path.join(env.xdgCacheHome, 'pks');
  return path.join(env.home, '.cache', 'pks');
}

export const configFilePath = (env?: PlatformEnv): string => path.join(configDir(env), 'config.yaml');
export const hostsFilePath = (env?: PlatformEnv): string => path.join(configDir(env), 'hosts.yml');
