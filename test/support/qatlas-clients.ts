import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChildResult } from './server.js';

/**
 * The original service's published clients (CONTRACT §19), pinned. Both install the `qatlas` command over the same
 * `qatlas` package files, so each gets its own venv under the checkout's `.cache/qatlas-venv/` (never the project
 * venv).
 */
export const QATLAS_CLIENTS = { 'quantum-atlas': 'quantum-atlas==0.20.0', 'qatlas-cli': 'qatlas-cli==0.34.0' } as const;
export type QatlasClient = keyof typeof QATLAS_CLIENTS;

const venvOf = (client: QatlasClient) => resolve(import.meta.dirname, '../../.cache/qatlas-venv', client);
const binOf = (client: QatlasClient) => resolve(venvOf(client), 'bin/qatlas');

/**
 * `null` when the client is installed (scripts/install-test-deps.sh makes each venv once and writes the marker after
 * a complete install), else what is missing.
 */
export function qatlasClientMissing(client: QatlasClient): string | null {
  const marker = resolve(venvOf(client), '.pks-installed');
  if (
    existsSync(marker) &&
    readFileSync(marker, 'utf8').trim() === QATLAS_CLIENTS[client] &&
    existsSync(binOf(client))
  ) {
    return null;
  }
  return `${QATLAS_CLIENTS[client]} is not installed in ${venvOf(client)} (run scripts/install-test-deps.sh)`;
}

/**
 * The `qatlas` client's configuration directory: `config.yaml` (server, MinerU) and `hosts.yml` (the PAT; none when
 * `token` is null: `qatlas auth login` writes it).
 */
export function writeQatlasConfig(
  configHome: string,
  settings: { serverUrl: string; token: string | null; mineruBaseUrl: string; mineruToken: string },
): void {
  const dir = resolve(configHome, 'qatlas');
  mkdirSync(dir, { recursive: true });
  const host = new URL(settings.serverUrl).host;
  writeFileSync(
    resolve(dir, 'config.yaml'),
    [
      `server_url: ${JSON.stringify(settings.serverUrl)}`,
      `mineru_api_tokens: [${JSON.stringify(settings.mineruToken)}]`,
      `mineru_api_base_url: ${JSON.stringify(settings.mineruBaseUrl)}`,
      'mineru_poll_interval: 1.0',
      'mineru_timeout: 120',
      '',
    ].join('\n'),
  );
  if (settings.token === null) return;
  writeFileSync(
    resolve(dir, 'hosts.yml'),
    `hosts:\n  ${JSON.stringify(host)}:\n    token: ${JSON.stringify(settings.token)}\n`,
  );
}

/**
 * Runs `qatlas` to completion with only PATH, HOME and XDG_CONFIG_HOME set (asynchronously: the server is
 * in-process), in `cwd` when given; `input` is written to its stdin (else stdin is closed).
 */
export function runQatlas(
  client: QatlasClient,
  args: readonly string[],
  configHome: string,
  options: { readonly input?: string; readonly cwd?: string } = {},
): Promise<ChildResult> {
  const child = spawn(binOf(client), [...args], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: configHome, XDG_CONFIG_HOME: configHome },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
}
