/**
 * The client's settings module: the only place of `pks` that reads the environment (`HOME`, `XDG_CONFIG_HOME`,
 * `XDG_CACHE_HOME`, `APPDATA`, CONTRACT §16.1). Other tools of `pks` (the quantum extractor) read the configuration through
 * `readPksConfig()`.
 */
export { cacheDir, configDir, configFilePath, hostsFilePath, platformEnv, type PlatformEnv } from './paths.js';
export { CONFIG_KEYS, configKey, isSensitiveKey, maskValue, KEY_NAME_PATTERN, type ConfigKey } from './keys.js';
export { ConfigFileError, configTemplate, ensureConfigFile, readConfigMapping, writeConfigMapping } from './file.js';
export { loadConfig, DEFAULT_SERVER_URL, type PksConfig } from './load.js';
export { coerceSetValue, formatValue, splitList, type ConfigValue } from './values.js';
export {
  HostsFile,
  normalizeHost,
  redactToken,
  tokenType,
  type CredentialStore,
  type HostCredential,
} from './hosts.js';

import { loadConfig, type PksConfig } from './load.js';

/**
 * The loaded `config.yaml` (file over defaults), e.g. `openaiApiKey`/`anthropicApiKey` and their base URLs for the
 * extractor. Throws `ConfigFileError` (exit 1) when the file is broken.
 */
export function readPksConfig(): PksConfig {
  return loadConfig();
}
