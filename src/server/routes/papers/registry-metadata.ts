/** Paper registry routes (CONTRACT §18.2): detail and lookup. */
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from '../papers.js';

export function metadataActions(_ctx: AppContext): PaperAction[] {
  return [];
}
