import type { Logger } from 'pino';
import type { Config } from '../config/types.js';

/** The server's wiki: the in-memory snapshot of the checkout, its refresh, and git sync (CONTRACT §13.3–13.4). */
export interface WikiService {
  close(): Promise<void>;
}

export async function openWiki(_config: Config, _logger: Logger): Promise<WikiService> {
  return { close: async () => undefined };
}
