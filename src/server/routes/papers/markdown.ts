/** `GET /api/papers/{id_or_doi}/markdown` (CONTRACT §11.4): the paper's markdown, or a job started (or joined) for it. */
import type { PaperAccess } from '../../access/service.js';
import type { PaperAction } from './action.js';
import { triggerAction } from './trigger-action.js';

export const markdownAction = (access: PaperAccess): PaperAction =>
  triggerAction(access, 'markdown', '/api/papers/{preprint_id}/markdown');
