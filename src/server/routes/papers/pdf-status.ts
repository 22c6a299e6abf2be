/** `GET /api/papers/{id_or_doi}/pdf/status` (CONTRACT §11.4): the state of the paper's PDF, no side effects. */
import type { PaperAccess } from '../../access/service.js';
import type { PaperAction } from './action.js';
import { statusAction } from './status-action.js';

export const pdfStatusAction = (access: PaperAccess): PaperAction =>
  statusAction(access, 'pdf', '/api/papers/{preprint_id}/pdf/status');
