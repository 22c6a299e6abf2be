/** The client's pure rules, table by table (CONTRACT §16.1, §16.2, §16.5, §16.6, §12.4). */
import { describe, expect, it } from 'vitest';
import { normalizeHost, redactToken, tokenType } from '../../../src/cli/config/hosts.js';
import { isSensitiveKey, maskValue } from '../../../src/cli/config/keys.js';
import { configDir } from '../../../src/cli/config/paths.js';
import { defaultTokenName, parseScopes } from '../../../src/cli/commands/auth/login.js';
import { isTrustedPdfUrl } from '../../../src/cli/commands/contrib/parser/trust.js';
import { encodePaperId, etaLine } from '../../../src/cli/commands/paper/access.js';
import { defaultSubdir } from '../../../src/cli/commands/wiki/create.js';
import { shortSnippet } from '../../../src/cli/commands/wiki/search.js';
import { retryAfterSeconds } from '../../../src/cli/http/api-client.js';
import { isNewerServer, majorMinor } from '../../../src/cli/http/version-gate.js';
import { classifyParserError, classifyParserText } from '../../../src/parser-api/classify.js';
import { TokenRing } from '../../../src/parser-api/token-ring.js';
import { nextLocalDayAt0001 } from '../../../src/shared/local-day.js';

describe('§16.1 files', () => {
  it.each([
    ['linux', { XDG_CONFIG_HOME: '/x' }, '/x/pks'],
    ['linux', { XDG_CONFIG_HOME: '' }, '/home/u/.config/pks'],
    ['linux', {}, '/home/u/.config/pks'],
    ['freebsd', {}, '/home/u/.config/pks'],
    ['darwin', { XDG_CONFIG_HOME: '/x' }, '/home/u/Library/Application Support/pks'],
    ['win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u\\AppData\\Roaming\\pks'],
  ] as const)('%s %j → %s', (platform, env, dir) => {
    expect(
      configDir({
        platform,
        home: '/home/u',
        xdgConfigHome: (env as Record<string, string>)['XDG_CONFIG_HOME'],
        appData: (env as Record<string, string>)['APPDATA'],
      }),
    ).toBe(dir);
  });

  it.each([
    ['', ''],
    ['abc', '***'],
    ['12345678', '***'],
    ['123456789', '1234…6789 (9 chars)'],
    ['sk-VeryLongSensitiveValue1234', 'sk-V…1234 (29 chars)'],
  ])('mask %j → %j', (value, masked) => expect(maskValue(value)).toBe(masked));

  it.each([
    ['parser_api_tokens', true],
    ['openai_api_key', true],
    ['client_secret', true],
    ['db_PASSWORD', true],
    ['server_url', false],
    ['wiki_dir', false],
  ])('sensitive %s → %s', (key, sensitive) => expect(isSensitiveKey(key)).toBe(sensitive));

  it.each([
    ['https://QUANTUM.example/', 'quantum.example'],
    ['http://h:4200/x', 'h:4200'],
    ['  pks.example.org  ', 'pks.example.org'],
    ['pks.example.org:8443/path?q#f', 'pks.example.org:8443'],
    ['https://user:pw@Host.example', 'host.example'],
    ['', ''],
  ])('host %j → %j', (input, host) => expect(normalizeHost(input)).toBe(host));

  it.each([
    ['pat_abcdefghijkl', 'pat_abcd********'],
    ['pat_abcd', 'pat_ab********'],
    ['system-pat-value', 'system********'],
    ['abcdef', '********'],
    ['', '********'],
  ])('redact %j → %j', (token, shown) => expect(redactToken(token)).toBe(shown));

  it('token type: a JWT is a session, anything else a PAT', () => {
    expect(tokenType('eyJhbGciOiJIUzI1NiJ9.eyJpZCI6IngifQ.c2ln')).toBe('session');
    expect(tokenType('pat_x')).toBe('PAT');
    expect(tokenType('system-pat-0123456789')).toBe('PAT');
  });
});

describe('§8.3 / §16.2 version rule and Retry-After', () => {
  it.each([
    ['0.1.0', [0, 1]],
    ['1.2', [1, 2]],
    ['1.2.3-rc.1', [1, 2]],
    ['1.2.3+build', [1, 2]],
    ['v1.2.3', null],
    ['dev', null],
  ] as const)('majorMinor(%s)', (v, mm) => expect(majorMinor(v)).toEqual(mm));

  it.each([
    ['0.2.0', '0.1.9', true],
    ['1.0.0', '0.9.0', true],
    ['0.1.9', '0.1.0', false],
    ['0.1.0', '0.2.0', false],
    ['dev', '0.1.0', false],
  ])('server %s newer than client %s: %s', (s, c, newer) => expect(isNewerServer(s, c)).toBe(newer));

  it('Retry-After: seconds or an HTTP date', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(undefined)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
    const now = Date.parse('2026-05-01T12:00:00Z');
    expect(retryAfterSeconds('Fri, 01 May 2026 12:00:30 GMT', now)).toBe(30);
  });
});

describe('§16.4 login inputs', () => {
  it('scopes: split, trimmed, de-duplicated', () => {
    expect(parseScopes(' wiki:read, papers:write,,wiki:read ')).toEqual(['wiki:read', 'papers:write']);
    expect(parseScopes('')).toEqual([]);
  });

  it('default name: pks-cli-<hostname lower-cased, . and : → -, ≤ 32>-<UTC date>', () => {
    const now = new Date('2026-05-28T23:30:00Z');
    expect(defaultTokenName(now, 'My.Laptop:Home')).toBe('pks-cli-my-laptop-home-2026-05-28');
    expect(defaultTokenName(now, 'x'.repeat(40))).toBe(`pks-cli-${'x'.repeat(32)}-2026-05-28`);
  });
});

describe('§16.5 contributor rules', () => {
  it.each([
    ['https://arxiv.org/pdf/2501.00010v1', true],
    ['https://export.arxiv.org/pdf/2501.00010v1', true],
    ['http://pks.example.org:9999/x.pdf', true], // the server's host, port ignored
    ['https://mirror.example/x.pdf', true], // trusted_pdf_hosts
    ['https://evil.example/x.pdf', false],
    ['https://arxiv.org.evil.example/x.pdf', false],
    ['file:///etc/passwd', false],
    ['not a url', false],
  ])('trust %s → %s', (url, trusted) =>
    expect(isTrustedPdfUrl(url, 'https://pks.example.org:4200', ['Mirror.example'])).toBe(trusted),
  );

  it.each([
    [{ httpStatus: 429, code: null, message: '' }, 'daily_limit'],
    [{ httpStatus: 200, code: -60018, message: '' }, 'daily_limit'],
    [{ httpStatus: 200, code: '-60019', message: '' }, 'daily_limit'],
    [{ httpStatus: 200, code: -60009, message: 'queue full' }, 'retryable'],
    [{ httpStatus: 200, code: 'A0202', message: 'token invalid' }, 'fatal'],
    [{ httpStatus: 200, code: -60014, message: '' }, 'fatal'],
    [{ httpStatus: 401, code: null, message: '' }, 'fatal'],
    [{ httpStatus: 200, code: 1, message: 'number of pages exceeds 600' }, 'fatal'],
    [{ httpStatus: 200, code: 1, message: 'quota of the day used' }, 'daily_limit'],
    [{ httpStatus: 503, code: null, message: 'busy' }, 'retryable'],
    [{ httpStatus: 408, code: null, message: '' }, 'retryable'],
    [{ httpStatus: null, code: null, message: 'ECONNRESET', network: true }, 'retryable'],
    [{ httpStatus: 400, code: 7, message: 'odd' }, 'unclassified'],
  ])('classify %j → %s', (failure, kind) => expect(classifyParserError(failure)).toBe(kind));

  it('err_msg texts: page/size limits are fatal, quota words are daily limits', () => {
    expect(classifyParserText('文件大小超过限制')).toBe('fatal');
    expect(classifyParserText('今日额度已用完')).toBe('daily_limit');
    expect(classifyParserText('try again TOMORROW')).toBe('daily_limit');
    expect(classifyParserText('internal error')).toBe('unclassified');
  });

  it('key ring: round-robin; a cooled token waits until 00:01 local of the next day', () => {
    let now = new Date(2026, 4, 1, 15, 0, 0);
    const ring = new TokenRing(['a', 'b'], { now: () => now.getTime() });
    expect([ring.next(), ring.next(), ring.next()]).toEqual(['a', 'b', 'a']);
    ring.coolDown('b');
    expect([ring.next(), ring.next()]).toEqual(['a', 'a']);
    ring.coolDown('a');
    expect(ring.next()).toBeNull();
    now = new Date(2026, 4, 2, 0, 0, 59);
    expect(ring.next()).toBeNull();
    now = new Date(2026, 4, 2, 0, 1, 0);
    expect(ring.next()).not.toBeNull();
    expect(nextLocalDayAt0001(new Date(2026, 11, 31, 23, 59).getTime())).toBe(new Date(2027, 0, 1, 0, 1).getTime());
  });
});

describe('§16.6 paper access', () => {
  const fetchPart = (bytes_received: number, bytes_total: number | null) => ({
    started_at: '2026-05-01T12:00:00Z',
    completed_at: null,
    bytes_received,
    bytes_total,
    sha256: null,
    attempts: 1,
  });
  const convertPart = (stage: string, polled_count: number) => ({
    started_at: '2026-05-01T12:00:05Z',
    parser_task_id: polled_count > 0 ? 'task-1' : null,
    stage,
    polled_count,
    completed_at: null,
    extracted_pages: null,
    total_pages: null,
  });

  it('the eta line of the contract example; empty and zero parts left out', () => {
    expect(
      etaLine({
        preprint_id: '2501.00010v1',
        state: 'queued',
        phase: 'converting_md',
        pdf_ready: true,
        md_ready: false,
        fetch: fetchPart(100, 500),
        convert: convertPart('submitting', 0),
        queue: {
          position: 3,
          ahead_of_me: 2,
          running_count: 4,
          max_concurrent: 4,
          eta_seconds: 240,
          avg_duration_seconds: 60,
          eta_basis: 'observed_avg_of_4_jobs',
        },
      }),
    ).toBe('queued converting_md fetch=100/500B convert.submitting queue=#3(2ahead,4/4slot) eta=240s');
    const base = { preprint_id: '2501.00010v1', pdf_ready: false, md_ready: false };
    expect(etaLine({ ...base, state: 'none', phase: '', fetch: fetchPart(0, null) })).toBe('none');
    expect(etaLine({ ...base, state: 'running', phase: 'fetching_pdf', fetch: fetchPart(7, null) })).toBe(
      'running fetching_pdf fetch=7B',
    );
    expect(etaLine({ ...base, state: 'running', phase: 'converting_md', convert: convertPart('polling', 3) })).toBe(
      'running converting_md convert.polling polls=3',
    );
  });

  it.each([
    [' 2501.00010v1 ', '2501.00010v1'],
    ['/quant-ph/9508027', 'quant-ph/9508027'],
    ['10.1103/PhysRevA.52.R2493', '10.1103/PhysRevA.52.R2493'],
    ['doi:10.1/a b?#', 'doi:10.1/a%20b%3F%23'],
  ])('id %j → %j', (raw, encoded) => expect(encodePaperId(raw)).toBe(encoded));
});

describe('§16.3 wiki details', () => {
  it.each([
    ['concept', undefined, 'concepts'],
    ['entity', 'algorithm', 'entities/algorithms'],
    ['entity', 'primitive', 'entities/primitives'],
    ['entity', 'person', 'entities/people'],
    ['entity', 'technique', 'entities'],
    ['source', 'paper', 'sources/papers'],
    ['comparison', undefined, 'comparisons'],
  ])('new %s (%s) → %s/', (type, category, dir) => expect(defaultSubdir(type, category)).toBe(dir));

  it('search snippets are cut to 80 characters', () => {
    expect(shortSnippet('x'.repeat(80))).toBe('x'.repeat(80));
    expect(shortSnippet('y'.repeat(160))).toBe(`${'y'.repeat(77)}...`);
  });
});
