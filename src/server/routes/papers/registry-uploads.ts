/** Paper asset routes (CONTRACT §9): stats, needs-parser, uploads and claims. */
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from './action.js';
import { needsParserAction } from './needs-parser.js';
import { parserClaimReleaseAction } from './parser-claim-release.js';
import { parserClaimAction } from './parser-claim.js';
import { statsAction } from './stats.js';
import { uploadParserAction } from './upload-parser.js';
import { uploadPdfAction } from './upload-pdf.js';

export function uploadActions(ctx: AppContext): PaperAction[] {
  return [
    uploadPdfAction(ctx),
    uploadParserAction(ctx),
    parserClaimAction(ctx),
    parserClaimReleaseAction(ctx),
    statsAction(ctx),
    needsParserAction(ctx),
  ];
}
