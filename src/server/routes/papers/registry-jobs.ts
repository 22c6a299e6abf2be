/** Paper registry routes (CONTRACT §18.2): fetch, jobs and the original clients' downloader routes. */
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from '../papers.js';

export function jobActions(_ctx: AppContext): PaperAction[] {
  return [];
}
