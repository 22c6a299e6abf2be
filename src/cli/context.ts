/**
 * What a command may touch, injected so commands can run in-process in tests: the streams, the clock, the
 * configuration and credential store, and a factory for the server client.
 */
import type { Readable, Writable } from 'node:stream';
import { VERSION } from '../shared/version.js';
import { HostsFile, normalizeHost, type CredentialStore } from './config/hosts.js';
import { loadConfig, type PksConfig } from './config/load.js';
import { ApiClient } from './http/api-client.js';
import { VersionGate } from './http/version-gate.js';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /**
   * The client's own terminal control sequences (the progress line's erase) on stderr: the one writer that is not
   * filtered by `terminalSafeIO`. Never for text that came from elsewhere.
   */
  readonly stderrControl: (sequence: string) => void;
  /**
   * The client's own terminal control sequences on stdout (`paper jobs --watch` redrawing its table), unfiltered
   * like `stderrControl`; absent where stdout is no terminal the client may draw on (the table is then reprinted).
   */
  readonly stdoutControl?: (sequence: string) => void;
  /** For binary output (`paper get` to stdout). */
  readonly stdoutStream: Writable;
  readonly stdin: Readable;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Width of the terminal (that of stderr, else of stdout; 80 when unknown). */
  readonly columns: () => number;
}

export interface ApiOptions {
  /** Base URL instead of the configured one (`auth login`). */
  readonly baseUrl?: string;
  readonly insecure?: boolean;
  readonly timeoutMs?: number;
  /** Send no token (the device-flow endpoints are anonymous). */
  readonly anonymous?: boolean;
}

export interface CliContext {
  readonly io: CliIO;
  readonly cwd: string;
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** The loaded configuration (read once per run; throws `ConfigFileError`). */
  config(): PksConfig;
  readonly credentials: CredentialStore;
  /** A client of the configured server carrying the stored token of its host. */
  api(options?: ApiOptions): ApiClient;
  readonly gate: VersionGate;
  warnOnce(key: string, text: string): void;
  /** Subscribe to SIGINT/SIGTERM; returns the unsubscribe function. */
  onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
}

/** Sleeps `ms`; rejects with the signal's reason when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The context of a real run (`bin/pks`). */
export function processContext(io: CliIO): CliContext {
  let config: PksConfig | null = null;
  const warned = new Set<string>();
  const gate = new VersionGate(VERSION, io.stderr);
  const credentials = new HostsFile(io.stderr);
  const ctx: CliContext = {
    io,
    cwd: process.cwd(),
    now: () => new Date(),
    sleep,
    config: () => (config ??= loadConfig()),
    credentials,
    gate,
    warnOnce(key, text) {
      if (warned.has(key)) return;
      warned.add(key);
      io.stderr(text);
    },
    api(options = {}) {
      const cfg = ctx.config();
      const baseUrl = (options.baseUrl ?? cfg.baseUrl).replace(/\/+$/, '');
      return new ApiClient({
        baseUrl,
        token: options.anonymous ? undefined : credentials.get(normalizeHost(baseUrl))?.token,
        insecure: options.insecure ?? cfg.insecure,
        timeoutMs: options.timeoutMs ?? 120_000,
        gate,
        warnOnce: ctx.warnOnce,
        sleep,
      });
    },
    onSignal(handler) {
      const onInt = () => handler('SIGINT');
      const onTerm = () => handler('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
  };
  return ctx;
}
