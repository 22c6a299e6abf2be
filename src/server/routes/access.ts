/**
 * Paper access over HTTP (CONTRACT §11.4): `GET /api/papers/{id_or_doi}/markdown`, `/pdf`, `/markdown/status`,
 * `/pdf/status` and `/images/{name}` as actions of the papers dispatcher (one module each under papers/),
 * registered only with `SVC_PAPER_ACCESS_ENABLED=true`. Resolution runs first; its defaults are reported in
 * `X-Svc-*` headers on every answer of the request.
 */
import type { PaperAccess } from '../access/service.js';
import type { PaperAction } from './papers/action.js';
import { imageAction } from './papers/image.js';
import { markdownStatusAction } from './papers/markdown-status.js';
import { markdownAction } from './papers/markdown.js';
import { pdfStatusAction } from './papers/pdf-status.js';
import { pdfAction } from './papers/pdf.js';

/** The paper-access actions for the papers dispatcher. */
export function accessActions(access: PaperAccess): PaperAction[] {
  return [
    markdownAction(access),
    pdfAction(access),
    markdownStatusAction(access),
    pdfStatusAction(access),
    imageAction(access),
  ];
}
