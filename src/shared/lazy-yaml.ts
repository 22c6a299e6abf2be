/**
 * The `yaml` package, loaded on first use. Loading it costs ~12 ms of a client run, which `pks wiki search` over
 * pages and a config.yaml that the fast parsers read never needs. Same module instance as a static import (the
 * package's `node` export is CommonJS).
 */
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';

let loaded: typeof YamlModule | undefined;

export function yaml(): typeof YamlModule {
  return (loaded ??= createRequire(import.meta.url)('yaml') as typeof YamlModule);
}
