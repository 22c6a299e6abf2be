/**
 * `ApiClient.prepareWrite`: the server-version probe (§16.2) starts before the write is ready (while `contrib pdf`
 * hashes), runs once, and its outcome reaches the write — the refusal, or the probe's own failure.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../../src/cli/http/api-client.js';
import { VersionGate } from '../../../src/cli/http/version-gate.js';
import { freePort } from '../../support/free-port.js';
import { startServerDouble, type ServerDouble } from '../support/server-double.js';

let api: ServerDouble;
beforeEach(async () => {
  api = await startServerDouble();
});
afterEach(async () => {
  await api.close();
});

function client(baseUrl: string): ApiClient {
  return new ApiClient({
    baseUrl,
    token: undefined,
    insecure: false,
    timeoutMs: 5_000,
    gate: new VersionGate('0.1.0', () => {}),
    warnOnce: () => {},
    sleep: () => Promise.resolve(),
  });
}

const UPLOAD = '/api/papers/2501.00010v1/upload-pdf';

describe('ApiClient.prepareWrite', () => {
  it('sends the probe at once; the write that follows waits for it and does not probe again', async () => {
    api.on('POST', UPLOAD, { status: 201, body: { created: true } });
    const c = client(api.baseUrl);
    c.prepareWrite();
    c.prepareWrite();
    await vi.waitFor(() => expect(api.calls('GET', '/api/server/info')).toHaveLength(1));
    expect(api.calls('POST', UPLOAD)).toHaveLength(0);
    const res = await c.request('POST', UPLOAD, { kind: 'write', body: '%PDF' });
    expect(res.status).toBe(201);
    await res.text();
    expect(api.calls('GET', '/api/server/info')).toHaveLength(1);
    expect(api.calls('POST', UPLOAD)).toHaveLength(1);
  });

  it('a newer server learned by the early probe: the write is refused and never sent', async () => {
    api.version = '0.2.0';
    const c = client(api.baseUrl);
    c.prepareWrite();
    await expect(c.request('POST', UPLOAD, { kind: 'write', body: '%PDF' })).rejects.toThrow(
      'ERROR: server version 0.2.0 is newer than client 0.1.0. Upgrade pks (npm install -g pks).',
    );
    expect(api.calls('POST', UPLOAD)).toHaveLength(0);
  });

  it('a probe that fails while the caller is busy fails the write (and is no unhandled rejection)', async () => {
    const c = client(`http://127.0.0.1:${await freePort()}`);
    c.prepareWrite();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the probe has failed by now, unobserved
    await expect(c.request('POST', UPLOAD, { kind: 'write', body: '%PDF' })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a failed probe is not remembered: the next write probes again and goes through', async () => {
    api.on('POST', UPLOAD, { status: 201, body: { created: true } });
    api.on('GET', '/api/server/info', { status: 200, body: 'not json', headers: { 'x-svc-server-version': '' } });
    const c = client(api.baseUrl);
    const aborted = new AbortController();
    aborted.abort(new Error('interrupted'));
    await expect(c.request('POST', UPLOAD, { kind: 'write', body: '%PDF', signal: aborted.signal })).rejects.toThrow(
      'interrupted',
    );
    const res = await c.request('POST', UPLOAD, { kind: 'write', body: '%PDF' });
    expect(res.status).toBe(201);
    await res.text();
    expect(api.calls('POST', UPLOAD)).toHaveLength(1);
  });
});
