/** `runPks` in-process with an injected context: the credential store and the streams are the test's. */
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../../src/cli/context.js';
import type { CredentialStore, HostCredential } from '../../../src/cli/config/hosts.js';
import { runPks } from '../../../src/cli/main.js';
import { capturingIO } from '../support/captured-io.js';

function memoryStore(entries: Record<string, HostCredential>): CredentialStore {
  const hosts = new Map(Object.entries(entries));
  return {
    path: '/memory/hosts.yml',
    list: () => [...hosts].sort(([a], [b]) => (a < b ? -1 : 1)),
    get: (host) => hosts.get(host),
    set: (host, token, now) => void hosts.set(host, { token, added_at: now.toISOString() }),
    delete: (host) => hosts.delete(host),
  };
}

async function run(argv: string[], credentials: CredentialStore) {
  const out = { stdout: '', stderr: '' };
  const io = capturingIO(out);
  const context = (): CliContext =>
    ({
      io,
      credentials,
      now: () => new Date('2026-05-01T12:00:00Z'),
      config: () => {
        throw new Error('no config in this test');
      },
    }) as unknown as CliContext;
  const code = await runPks(argv, io, { context });
  return { code, ...out };
}

describe('runPks with an injected context', () => {
  it('auth status reads the injected credential store', async () => {
    const store = memoryStore({ 'b.example': { token: 'pat_bbbbbbbbbb', added_at: '2026-01-02T00:00:00Z' } });
    expect(await run(['auth', 'status'], store)).toEqual({
      code: 0,
      stdout:
        'b.example\n  ✓ Logged in (stored at /memory/hosts.yml)\n  - Token type:  PAT\n' +
        '  - Token value: pat_bbbb********\n  - Added:       2026-01-02T00:00:00Z\n',
      stderr: '',
    });
  });

  it('auth token -s prints the stored token; a missing one exits 1', async () => {
    const store = memoryStore({ 'h:4200': { token: 'pat_token_for_h', added_at: '' } });
    expect(await run(['auth', 'token', '-s', 'http://H:4200/'], store)).toMatchObject({
      code: 0,
      stdout: 'pat_token_for_h\n',
    });
    expect((await run(['auth', 'token', '-s', 'x.example'], store)).code).toBe(1);
  });

  it('--version needs no context', async () => {
    expect(await run(['--version'], memoryStore({}))).toEqual({ code: 0, stdout: 'pks 0.1.0\n', stderr: '' });
  });
});
