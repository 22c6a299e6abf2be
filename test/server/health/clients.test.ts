import { describe, expect, it } from 'vitest';
import { VERSION } from '../../../src/shared/version.js';
import { startTestServer } from '../../support/server.js';
import { startHttpDouble } from '../../support/upstreams/http-double.js';

describe('object store client', () => {
  it('sends path-style requests with the pksd/<version>/<edge> user agent and the service-account keys', async () => {
    const store = await startHttpDouble((_req, res) => void res.writeHead(200).end());
    const srv = await startTestServer({
      SVC_OBJ_ENDPOINT: store.baseUrl,
      SVC_OBJ_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      SVC_OBJ_SECRET_ACCESS_KEY: 'client-test-secret',
      SVC_OBJ_BUCKET_PDF: 'b-pdf',
      SVC_OBJ_BUCKET_MD: 'b-md',
      SVC_OBJ_BUCKET_IMAGES: 'b-images',
      SVC_EDGE_NAME: 'edge-7',
    });
    try {
      const body = await (await srv.fetch('/api/health')).json();
      expect(body.data.checks.rawstore).toMatchObject({ status: 'ok', backend: 's3-router' });
      const heads = store.requests.filter((r) => r.method === 'HEAD');
      expect(heads.map((r) => r.url).sort()).toEqual(['/b-images/', '/b-md/', '/b-pdf/']);
      for (const r of heads) {
        expect(String(r.headers['user-agent'])).toContain(`pksd/${VERSION}/edge-7`);
        expect(String(r.headers['authorization'])).toContain('Credential=AKIDEXAMPLE/');
      }
    } finally {
      await srv.close();
      await store.close();
    }
  });
});
