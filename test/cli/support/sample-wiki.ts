import { cpSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../support/server.js';
import { makeHome, writeConfig, type PksHome } from './pks.js';

/**
 * A `pks` home whose working directory holds a copy of `sample-wiki/` as `wiki`, configured as `wiki_dir: wiki`
 * (relative: resolved against the working directory).
 */
export function makeSampleWikiHome(): { h: PksHome; wiki: string } {
  const h = makeHome();
  const wiki = path.join(h.cwd, 'wiki');
  cpSync(path.join(REPO_ROOT, 'sample-wiki'), wiki, { recursive: true });
  writeConfig(h, 'wiki_dir: wiki\n');
  return { h, wiki };
}
