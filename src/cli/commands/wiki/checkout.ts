/** The local wiki checkout the `wiki` commands read: `wiki_dir` of the config, relative to the working directory. */
import path from 'node:path';
import { scanWiki } from '../../../wiki/scan.js';
import { buildSnapshot, type WikiSnapshot } from '../../../wiki/snapshot.js';
import type { CliContext } from '../../context.js';

export function wikiRoot(ctx: CliContext): string {
  return path.resolve(ctx.cwd, ctx.config().wikiDir);
}

/** Scans and indexes the checkout (pages, links, search) with the library the server uses. */
export async function loadSnapshot(ctx: CliContext): Promise<WikiSnapshot> {
  return buildSnapshot(await scanWiki(wikiRoot(ctx)));
}
