import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../../src/server/auth/identity.js';
import { openTestIdentity, startTestServer, testUser, type TestServer } from '../../support/server.js';
import { CHROMIUM, useBrowser } from '../../web/support/browser.js';

describe.skipIf(!CHROMIUM)('admin UI in a real browser', () => {
  const browser = useBrowser();
  let srv: TestServer;
  let identity: Identity;
  beforeAll(async () => {
    srv = await startTestServer();
    identity = await openTestIdentity(srv.config);
    await identity.superusers.upsert('root@example.org', 'correct horse battery');
  });
  afterAll(async () => {
    identity?.close();
    await srv?.close();
  });

  it('signs in, lists users and PATs, shows settings and health, revokes a PAT and sessions, under its CSP', async () => {
    const user = await testUser(identity, 'alice');
    const pat = await identity.pats.mint(user.id, {
      name: 'laptop',
      description: '',
      expiresInDays: 30,
      scopes: ['wiki:read'],
    });
    const page = await browser().newPage();
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(srv.url)) external.push(r.url());
    });
    page.on('dialog', (d) => void d.accept());
    // The page runs under its Content-Security-Policy: a blocked script or style would show up here.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.addInitScript({
      content:
        "document.addEventListener('securitypolicyviolation', (e) => console.error('Content Security Policy: ' + e.violatedDirective));",
    });
    await page.goto(`${srv.url}/_/`);
    await page.fill('#email', 'root@example.org');
    await page.fill('#password', 'wrong password!');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:has-text("Failed to authenticate.")');
    await page.fill('#password', 'correct horse battery');
    await page.click('button[type=submit]');
    await page.waitForSelector(`#users td:has-text("${user.id}")`);
    await page.waitForSelector(`#pats td:has-text("${pat.prefix}")`);
    await page.waitForSelector('#settings td:has-text("SVC_DB_DATA_DIR")');
    await page.waitForSelector('#health:has-text("rawstore")');
    expect(await page.textContent('#pats')).not.toContain(pat.plaintext);
    await page.click(`#pats tr:has-text("${pat.prefix}") button`);
    await page.waitForSelector(`#pats td:has-text("${pat.prefix}")`, { state: 'detached' });
    expect(await identity.pats.get(pat.id)).toBeNull();

    const session = identity.sessions.issue(user);
    expect(await identity.sessions.verify(session)).not.toBeNull();
    await page.click(`#users tr:has-text("${user.id}") button:has-text("Revoke sessions")`);
    await expect.poll(async () => await identity.sessions.verify(session)).toBeNull();
    expect(await identity.users.get(user.id)).not.toBeNull(); // the user stays

    expect(violations).toEqual([]);
    expect(external).toEqual([]);
    await page.close();
  });
});
