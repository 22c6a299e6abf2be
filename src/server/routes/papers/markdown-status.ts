/** `GET /api/papers/{id_or_doi}/markdown/status` (CONTRACT §11.4): the state of the paper's markdown, no side effects. */
import type { PaperAccess } from '../../access/service.js';
import type { PaperAction } from './action.js';
import { statusAction } from './status-action.js';

export const markdownStatusAction = (access: PaperAccess): PaperAction =>
  statusAction(access, 'markdown', '/api/papers/{preprint_id}/markdown/status');
