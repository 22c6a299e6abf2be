/** Paper registry routes (CONTRACT §18.2): list, status/batch, figures, images/zip. */
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from './action.js';
import { figuresAction } from './figures.js';
import { imagesZipAction } from './images-zip.js';
import { listAction } from './list.js';
import { statusBatchAction } from './status-batch.js';

export function readActions(ctx: AppContext): PaperAction[] {
  return [listAction(ctx), statusBatchAction(ctx), figuresAction(ctx), imagesZipAction(ctx)];
}
