import { existsSync } from 'node:fs';
import pino from 'pino';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIdentity, type Identity } from '../../../src/server/auth/identity.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) =>
  existsSync(p),
);

describe.skipIf(!CHROMIUM)('admin UI in a real browser', () => {
  let srv: TestServer;
  let identity: Identity;
  let browser: Browser;
  beforeAll(async () => {
    srv = await startTestServer();
    identity = openIdentity(srv.config, pino({ level: 'silent' }), { background: false });
    identity.superusers.upsert('root@example.org', 'correct horse battery');
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    identity?.close();
    await srv?.close();
  });

  it('signs in, lists users and PATs, shows settings and health, and revokes a PAT', async () => {
    const { user } = identity.users.upsertFromIdp({
      provider: 'github',
      providerUserId: '7',
      login: 'octo',
      email: 'o@example.org',
      name: 'Octo',
      avatar: '',
    });
    const pat = identity.pats.mint(user.id, {
      name: 'laptop',
      description: '',
      expiresInDays: 30,
      scopes: ['wiki:read'],
    });
    const page = await browser.newPage();
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(srv.url)) external.push(r.url());
    });
    page.on('dialog', (d) => void d.accept());
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
    expect(identity.pats.get(pat.id)).toBeNull();
    expect(external).toEqual([]);
    await page.close();
  });
});
