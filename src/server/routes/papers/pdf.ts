/** `GET /api/papers/{id_or_doi}/pdf` (CONTRACT §11.4): the paper's PDF, or a job started (or joined) for it. */
import type { PaperAccess } from '../../access/service.js';
import type { PaperAction } from './action.js';
import { triggerAction } from './trigger-action.js';

export const pdfAction = (access: PaperAccess): PaperAction =>
  triggerAction(access, 'pdf', '/api/papers/{preprint_id}/pdf');
