/**
 * The OpenAPI document tells the truth (CONTRACT §8.4): it is a valid Swagger 2.0 document, it describes every
 * operation of the route table with its security and policy answers, and every answer the server gives to valid
 * and hostile requests is a documented status whose body matches the documented schema.
 */
import { createRequire } from 'node:module';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../../src/server/auth/identity.js';
import { multipart, pdfBytes, sha } from '../papers/helpers.js';
import { openTestIdentity, startTestServer, testUser, type TestServer } from '../../support/server.js';

// The draft-04 validator swagger-parser itself validates with: Swagger 2.0 schemas are draft-04 plus extensions.
const fromParser = createRequire(createRequire(import.meta.url).resolve('@apidevtools/swagger-parser'));
const Ajv04 = fromParser('ajv-draft-04') as new (options: object) => {
  addFormat(name: string, format: RegExp): void;
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown };
};

const SYSTEM_PAT = 'openapi-truth-system-pat-01';

type Json = Record<string, unknown>;
interface Operation {
  readonly security?: unknown;
  readonly parameters?: { name: string; in: string }[];
  readonly responses: Record<string, { schema?: Json }>;
  readonly produces?: string[];
}
type Doc = { paths: Record<string, Record<string, Operation>>; definitions?: Json };

/** Swagger's `x-nullable` as draft-04 says it. */
function draft04(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(draft04);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, draft04(v)]));
  if (out['x-nullable'] === true && typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null'];
    if (Array.isArray(out['enum'])) out['enum'] = [...out['enum'], null];
  }
  return out;
}

const walk = (node: unknown, visit: (n: Json) => void): void => {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (typeof node === 'object' && node !== null) {
    visit(node as Json);
    Object.values(node).forEach((n) => walk(n, visit));
  }
};

describe('the OpenAPI document', () => {
  let srv: TestServer;
  let identity: Identity;
  let doc: Doc;
  let session: string;
  let superuser: string;

  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: SYSTEM_PAT });
    doc = (await (await srv.fetch('/swagger/doc.json')).json()) as Doc;
    identity = await openTestIdentity(srv.config);
    session = identity.sessions.issue(await testUser(identity, 'truth'));
    await identity.superusers.upsert('truth-root@example.org', 'truth superuser password');
    const su = await identity.superusers.authenticate('truth-root@example.org', 'truth superuser password');
    superuser = identity.superusers.issue(su!);
  });
  afterAll(async () => {
    identity?.close();
    await srv?.close();
  });

  it('is a valid Swagger 2.0 document without JSON Schema constructs Swagger 2.0 lacks', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    walk(doc, (n) => {
      expect(n['anyOf'], JSON.stringify(n).slice(0, 200)).toBeUndefined();
      expect(n['oneOf'], JSON.stringify(n).slice(0, 200)).toBeUndefined();
      expect(n['type'], JSON.stringify(n).slice(0, 200)).not.toBe('null');
    });
  });

  it('describes every operation of the route table, and only those, with its security and policy answers', () => {
    const operations = srv.server.app.routeTable.filter((r) => !r.url.startsWith('/swagger') && !r.url.endsWith('*'));
    const seen = new Set<string>();
    for (const r of operations) {
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const where = `${r.method} ${path}`;
      seen.add(where);
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, where).toBeDefined();
      const statuses = Object.keys(op!.responses);
      if (r.guard.kind === 'superuser' || r.guard.kind === 'superuser-or-session') {
        // The admin guards answer only PocketBase's 401 (CONTRACT §7.9): never a 403.
        expect(op!.security, where).toEqual([{ Bearer: [] }]);
        expect(statuses, where).toContain('401');
        expect(statuses, where).not.toContain('403');
      } else if (r.guard.kind !== 'public') {
        expect(op!.security, where).toEqual([{ Bearer: [] }]);
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '403']));
      }
      if (r.rateLimitClass) expect(statuses, where).toContain('429');
      const success = statuses.filter((s) => /^[23]/.test(s));
      expect(success.length, where).toBeGreaterThan(0);
      for (const s of success) {
        if (s !== '204' && !s.startsWith('3')) expect(op!.responses[s]!.schema, `${where} ${s}`).toBeDefined();
      }
      for (const [s, response] of Object.entries(op!.responses)) {
        if (/^[45]/.test(s)) expect(response.schema, `${where} ${s}`).toBeDefined();
      }
    }
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.filter((d) => !seen.has(d))).toEqual([]);
  });

  it('every answer to valid and hostile requests is documented, status and body', async () => {
    const ajv = new Ajv04({ strict: false, allErrors: true });
    ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const problems: string[] = [];
    const credentials: Record<string, string> = {
      anonymous: '',
      junk: 'Bearer junk',
      system: `Bearer ${SYSTEM_PAT}`,
      session: `Bearer ${session}`,
      superuser: `Bearer ${superuser}`,
    };
    const pdf = pdfBytes('truth');
    const upload = multipart([{ name: 'pdf', content: pdf }]);
    /** Requests per operation: a valid one (where one is easy to make) and hostile ones. */
    const requests = (method: string, path: string): { url: string; body?: string | Buffer; type?: string }[] => {
      const fill = (values: Record<string, string>) =>
        path.replace(/\{([a-z_]+)\}/g, (_, n: string) => values[n] ?? 'x');
      const valid = fill({ preprint_id: '2501.00010v1', claim_id: 'c0ffee', id: 'nope', page_id: 'nope' });
      const hostile = fill({ preprint_id: '2501.00010v1%0A', claim_id: '%ZZ', id: 'x'.repeat(1200), page_id: '%ZZ' });
      const query =
        '?limit=abc&include_claimed=maybe&include_sources=2&overwrite=yes&expected_sha256=xyz&user_code=%00';
      const out: { url: string; body?: string | Buffer; type?: string }[] = [{ url: valid }, { url: hostile + query }];
      if (method !== 'post' && method !== 'delete') return out;
      {
        out.push({ url: valid, body: '{"a":', type: 'application/json' });
        out.push({ url: valid, body: '{"unknown_field":1}', type: 'application/json' });
        out.push({ url: valid, body: 'hello', type: 'text/plain' });
      }
      if (path.endsWith('upload-pdf')) {
        out.push({ url: `${valid}?expected_sha256=${sha(pdf)}`, body: upload.body, type: upload.contentType });
        out.push({ url: valid, body: upload.body, type: upload.contentType }); // unchanged → 200
      }
      if (path === '/api/pat' || path === '/api/oauth/device/code') {
        out.push({
          url: valid,
          body: JSON.stringify({ name: 't', expires_in_days: 1, scopes: [] }),
          type: 'application/json',
        });
      }
      if (path === '/api/oauth/device/token') {
        out.push({
          url: valid,
          body: 'device_code=x&grant_type=y&client_id=pks',
          type: 'application/x-www-form-urlencoded',
        });
      }
      return out;
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [label, authorization] of Object.entries(credentials)) {
          for (const r of requests(method, path)) {
            const headers: Record<string, string> = {};
            if (authorization) headers['Authorization'] = authorization;
            if (r.type) headers['Content-Type'] = r.type;
            const res = await srv.fetch(r.url, {
              method: method.toUpperCase(),
              headers,
              body: r.body,
              redirect: 'manual',
            });
            const where = `${method.toUpperCase()} ${r.url.slice(0, 80)} (${label}, ${r.type ?? 'no body'}) → ${res.status}`;
            const text = await res.text();
            const documented = op.responses[String(res.status)];
            if (!documented) {
              problems.push(`${where}: status not documented; ${text.slice(0, 120)}`);
              continue;
            }
            const type = res.headers.get('content-type') ?? '';
            if (!documented.schema || res.status === 204) continue;
            if (!type.startsWith('application/json')) {
              const produces = op.produces ?? ['application/json'];
              if (!produces.some((p) => type.startsWith(p))) problems.push(`${where}: content type ${type}`);
              continue;
            }
            const validate = ajv.compile(draft04(documented.schema) as object);
            if (!validate(JSON.parse(text))) {
              problems.push(
                `${where}: body ${text.slice(0, 150)} fails ${JSON.stringify(validate.errors).slice(0, 300)}`,
              );
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
