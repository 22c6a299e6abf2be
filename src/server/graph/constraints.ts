/** Graph constraints and indexes of CONTRACT §6.4, created idempotently (`IF NOT EXISTS`). */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { GraphClient } from './driver.js';
import { withSession } from './session.js';

/**
 * Names are fixed so that every writer (claims, papers sync, wiki sync, the server start) creates the same objects;
 * `parser_claim_*` match what the claim store creates itself.
 */
export const GRAPH_SCHEMA_STATEMENTS: readonly string[] = [
  'CREATE CONSTRAINT paper_preprint_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.preprint_id IS UNIQUE',
  'CREATE CONSTRAINT algorithm_wiki_id IF NOT EXISTS FOR (n:Algorithm) REQUIRE n.wiki_id IS UNIQUE',
  'CREATE CONSTRAINT primitive_wiki_id IF NOT EXISTS FOR (n:Primitive) REQUIRE n.wiki_id IS UNIQUE',
  'CREATE CONSTRAINT author_wiki_id IF NOT EXISTS FOR (n:Author) REQUIRE n.wiki_id IS UNIQUE',
  'CREATE CONSTRAINT concept_wiki_id IF NOT EXISTS FOR (n:Concept) REQUIRE n.wiki_id IS UNIQUE',
  'CREATE CONSTRAINT parser_claim_preprint_id IF NOT EXISTS FOR (c:ParserClaim) REQUIRE c.preprint_id IS UNIQUE',
  'CREATE INDEX paper_openalex_id IF NOT EXISTS FOR (n:Paper) ON (n.openalex_id)',
  'CREATE INDEX paper_doi IF NOT EXISTS FOR (n:Paper) ON (n.doi)',
  'CREATE INDEX paper_wiki_id IF NOT EXISTS FOR (n:Paper) ON (n.wiki_id)',
  'CREATE INDEX parser_claim_expires_at IF NOT EXISTS FOR (c:ParserClaim) ON (c.expires_at)',
];

/** Creates every §6.4 constraint and index that does not exist yet. Throws on the first failure. */
export async function ensureGraphSchema(graph: GraphClient): Promise<void> {
  await withSession(graph, 'WRITE', async (session) => {
    // Schema commands cannot share a transaction with each other; each runs in its own auto-commit transaction.
    for (const statement of GRAPH_SCHEMA_STATEMENTS) await session.run(statement);
  });
}

/**
 * The server start's background variant (CONTRACT §1.4 step 4): retried up to `attempts` times, `delayMs` apart;
 * logs and gives up after the last failure. Resolves `true` once created. `signal` stops the retries.
 */
export async function ensureGraphSchemaInBackground(
  graph: GraphClient,
  logger: Logger,
  options: { attempts?: number; delayMs?: number; signal?: AbortSignal } = {},
): Promise<boolean> {
  const attempts = options.attempts ?? 10;
  const delayMs = options.delayMs ?? 30_000;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (options.signal?.aborted) return false;
    try {
      await ensureGraphSchema(graph);
      logger.info('graph constraints and indexes ensured');
      return true;
    } catch (err) {
      const last = attempt === attempts;
      logger.warn(
        { err, attempt },
        last ? 'graph schema creation failed; giving up' : 'graph schema creation failed; retrying',
      );
      if (last) return false;
      try {
        await sleep(delayMs, undefined, options.signal ? { signal: options.signal, ref: false } : { ref: false });
      } catch {
        return false; // aborted
      }
    }
  }
  return false;
}
