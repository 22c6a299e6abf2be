/**
 * Paper access over HTTP (CONTRACT §11.4): `GET /api/papers/{id_or_doi}/markdown`, `/pdf`, `/markdown/status`,
 * `/pdf/status` and `/images/{name}` as actions of the papers dispatcher (one module each under papers/),
 * registered only with `SVC_PAPER_ACCESS_ENABLED=true`. Resolution runs first; its defaults are reported in
 * `X-Svc-*` headers on every answer of the request.
 */
import type { PaperAccess } from '../access/service.js';
import type { AppContext } from '../http/context.js';
import type { PaperAction } from './papers/action.js';
import { imageAction } from './papers/image.js';
import { markdownStatusAction } from './papers/markdown-status.js';
import { markdownAction } from './papers/markdown.js';
import { pdfStatusAction } from './papers/pdf-status.js';
import { pdfAction } from './papers/pdf.js';

/**
 * The paper-access service when paper access is on — the one place the routes decide it (the engine also exists
 * with it off, for ingest).
 */
export function paperAccessOf(ctx: AppContext): PaperAccess | null {
  return ctx.config.paperAccessEnabled && ctx.access ? ctx.access : null;
}

/** The paper-access actions for the papers dispatcher: none with paper access off. */
export function accessActions(ctx: AppContext): PaperAction[] {
  const access = paperAccessOf(ctx);
  if (!access) return [];
  return [
    markdownAction(access),
    pdfAction(access),
    markdownStatusAction(access),
    pdfStatusAction(access),
    imageAction(access),
  ];
}
