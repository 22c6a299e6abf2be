/** Paper registry routes (CONTRACT §18.2): detail and lookup. */
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from './action.js';
import { detailAction } from './detail.js';
import { lookupAction } from './lookup.js';

export function metadataActions(ctx: AppContext): PaperAction[] {
  return [detailAction(ctx), lookupAction(ctx)];
}
