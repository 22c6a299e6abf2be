/** Paper registry routes (CONTRACT §18.2): list, status/batch, figures, images/zip. */
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from '../papers.js';

export function readActions(_ctx: AppContext): PaperAction[] {
  return [];
}
