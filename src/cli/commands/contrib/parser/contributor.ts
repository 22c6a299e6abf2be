/** What every mode of `contrib parser` works with: the server, the claims, the parser and its key ring. */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { PksConfig } from '../../../config/load.js';
import type { CliContext } from '../../../context.js';
import type { ApiClient } from '../../../http/api-client.js';
import type { TokenRing } from '../../../../parser-api/token-ring.js';
import {
  ParserCallError,
  ZipStreamError,
  type ParserApiClient,
  type ParserOptions,
} from '../../../../parser-api/client.js';
import type { ProgressLine } from '../../../progress/line.js';
import type { ClaimBook } from './claims.js';

export interface ContribParserInput {
  readonly id: string | undefined;
  readonly batchSize: number;
  readonly ttlSeconds: number | undefined;
  readonly noCache: boolean;
  readonly overwrite: boolean;
  readonly push: boolean;
  readonly watch: boolean;
  readonly watchIntervalS: number;
  readonly timeoutMs: number;
  readonly quietProgress: boolean;
}

export interface Contributor {
  readonly ctx: CliContext;
  readonly input: ContribParserInput;
  readonly config: PksConfig;
  readonly api: ApiClient;
  readonly claims: ClaimBook;
  readonly parser: ParserApiClient;
  /** The conversion settings of every task and batch (config and `--no-cache`). */
  readonly parserOptions: ParserOptions;
  readonly ring: TokenRing;
  readonly progress: ProgressLine;
  /** Aborted (with an `InterruptedError`) by SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** Seconds between parser polls (`parser_poll_interval`, at least 1). */
  readonly pollIntervalS: number;
}

/** A temp directory for result zips, removed afterwards unless `keep`. */
export async function withTempDir<T>(keep: boolean, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-parser-'));
  try {
    return await fn(dir);
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
  }
}

/** Downloads a result zip to the file `dest`; a broken download or write is the parser's retryable error. */
export async function downloadZipTo(c: Contributor, url: string, dest: string): Promise<void> {
  await c.parser.downloadZip(
    url,
    (body) =>
      pipeline(body, createWriteStream(dest)).catch((err: unknown) => {
        throw new ZipStreamError((err as Error).message);
      }),
    c.signal,
  );
}

/** `2501.00010v1.zip` for a claim key. */
export const zipName = (key: string) => `${key.replace(/[^\w.-]/g, '_')}.zip`;

export const DAILY_LIMIT_MESSAGE = '[daily-limit] parser quota exhausted; exiting 75. Re-run after local 00:01.';

/**
 * Runs `call` with the next parser token, rotating past tokens that answer with their daily limit (each cools until
 * 00:01); `null` when every token is cooling. Other errors are thrown.
 */
export async function withNextToken<T>(
  c: Contributor,
  call: (token: string) => Promise<T>,
): Promise<{ token: string; value: T } | null> {
  for (;;) {
    const token = c.ring.next();
    if (token === null) return null;
    try {
      return { token, value: await call(token) };
    } catch (err) {
      if (!(err instanceof ParserCallError) || err.errorClass !== 'daily_limit') throw err;
      c.ring.coolDown(token);
    }
  }
}
