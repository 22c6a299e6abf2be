/**
 * Sign-in, personal access tokens and device approval in a real browser against a real pksd (CONTRACT §7.2, §7.3,
 * §7.8, §8.5), under the strict Content-Security-Policy, with axe-core on every screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, openPage, screenshotsAndAxe, type WebPage } from './support/browser.js';
import { sessionToken, signIn, startStack, type Stack } from './support/stack.js';
import type { PageGlobals } from './support/page-globals.js';

/** The id of the element that has keyboard focus ('' for none, which is `<body>`). */
const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''");
/** The text of the element that has keyboard focus. */
const focusedText = (page: Page) => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''");

describe.skipIf(!CHROMIUM)('web front end: sign-in, tokens, device approval', () => {
  let stack: Stack;
  let browser: Browser;
  const opened: WebPage[] = [];
  /** A fresh page, closed after the file; signed in and on `next` when given. */
  const open = async (next?: string) => {
    const w = await openPage(browser, stack.url);
    opened.push(w);
    if (next !== undefined) await signIn(w.page, stack.url, next);
    return w;
  };

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const o of opened) await o.close();
    await browser?.close();
    await stack?.close();
  });

  it('sends an anonymous visitor to /login, signs in through the IdP and returns to the page asked for', async () => {
    const w = await open();
    const { page } = w;
    await page.goto(`${stack.url}/pat`);
    await page.waitForURL(`${stack.url}/login?next=%2Fpat`);
    await page.getByRole('button', { name: 'Sign in with GitHub' }).waitFor();
    expect(await page.getByRole('link', { name: 'admin UI', exact: true }).getAttribute('href')).toBe('/_/');
    expect(await screenshotsAndAxe(page, 'login')).toEqual([]);

    await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
    await page.waitForURL(`${stack.url}/pat`);
    await page.getByRole('heading', { level: 1, name: 'Personal access tokens' }).waitFor();
    expect(await page.locator('.user-name').textContent()).toBe('Ada Lovelace');
    // The user record exists now and the stored session token is a credential for the session-only API.
    const token = await sessionToken(page);
    expect((await stack.server.fetch('/api/pat', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    // Every page load renews the session (CONTRACT §7.2).
    const refresh = page.waitForRequest(
      (r) => r.url() === `${stack.url}/api/collections/users/auth-refresh` && r.method() === 'POST',
    );
    await page.reload();
    expect((await (await refresh).response())?.status()).toBe(200);
    expect(w.cspViolations).toEqual([]);
    expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
  });

  it('refuses a login outside the allow-list and says why', async () => {
    const { page, cspViolations } = await open();
    const ada = stack.gh.user;
    stack.gh.user = { id: 99, login: 'mallory', name: 'Mallory', email: 'm@example.org', avatar_url: '' };
    try {
      await page.goto(`${stack.url}/login`);
      await page.getByRole('button', { name: 'Sign in with GitHub' }).click();
      await page.getByRole('alert').filter({ hasText: 'not authorized' }).waitFor();
      expect(await page.getByRole('alert').textContent()).toBe(
        'This account is not authorized to sign in. Ask an administrator to add your login to the allow-list.',
      );
      expect(await screenshotsAndAxe(page, 'auth-callback-refused')).toEqual([]);
      expect(await sessionToken(page)).toBe('');
      expect(cspViolations).toEqual([]);
    } finally {
      stack.gh.user = ada;
    }
  });

  it('creates a PAT shown once, which works against /api/pages until it is revoked', async () => {
    const { page, cspViolations } = await open('/pat');
    // The read scopes are selected by default.
    for (const [scope, checked] of [
      ['wiki:read', true],
      ['wiki:write', false],
      ['papers:read', true],
      ['papers:write', false],
      ['graph:read', true],
    ] as const) {
      expect(await page.getByRole('checkbox', { name: scope }).isChecked()).toBe(checked);
    }
    expect(await page.getByRole('radio', { name: '90 days' }).isChecked()).toBe(true);
    expect(await screenshotsAndAxe(page, 'pat-form')).toEqual([]);

    await page.getByLabel('Name').fill('laptop CLI');
    await page.getByLabel('Description (optional)').fill('for the wiki sync script');
    await page.getByRole('checkbox', { name: 'papers:read' }).uncheck();
    await page.getByRole('checkbox', { name: 'graph:read' }).uncheck();
    await page.getByText('30 days').click();
    await page.getByRole('button', { name: 'Create token' }).click();

    const plaintext = await page.locator('#new-token').inputValue();
    expect(plaintext).toMatch(/^pat_[A-Za-z0-9]{32}$/);
    // Focus goes to the new token (selected, ready to copy), not back to <body> with the form gone.
    await expect.poll(() => focusedId(page)).toBe('new-token');
    await page.getByText('Copy this token now. It is shown only once').waitFor();
    expect(await screenshotsAndAxe(page, 'pat-created')).toEqual([]);

    const pages = await stack.server.fetch('/api/pages', { headers: { Authorization: `Bearer ${plaintext}` } });
    expect(pages.status).toBe(200);
    expect(((await pages.json()) as { total: number }).total).toBeGreaterThan(0);
    // Scopes as chosen: papers:read was unchecked.
    const stats = await stack.server.fetch('/api/papers/stats', { headers: { Authorization: `Bearer ${plaintext}` } });
    expect(stats.status).toBe(403);

    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect.poll(() => page.locator('#new-token').count()).toBe(0);
    await expect.poll(() => focusedText(page)).toBe('Your tokens');
    const row = page.locator('tr', { hasText: 'laptop CLI' });
    expect(await row.locator('td[data-label="Token"]').textContent()).toBe(`${plaintext.slice(0, 12)}…`);
    expect(await row.locator('td[data-label="Scopes"]').textContent()).toBe('wiki:read');
    // The plaintext is never shown again.
    expect(await page.content()).not.toContain(plaintext);
    // The list shows the use made above (the server records it asynchronously).
    await expect
      .poll(async () => {
        await page.reload();
        return page.locator('tr', { hasText: 'laptop CLI' }).locator('td[data-label="Last used"]').textContent();
      })
      .not.toBe('never');
    expect(await screenshotsAndAxe(page, 'pat-list')).toEqual([]);

    await page.getByRole('button', { name: /^Revoke laptop CLI/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this token?' });
    await dialog.waitFor();
    expect(await screenshotsAndAxe(page, 'pat-revoke-dialog')).toEqual([]);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('Token revoked. Clients using it now get 401.').waitFor();
    await expect.poll(() => page.locator('tr', { hasText: 'laptop CLI' }).count()).toBe(0);
    await expect.poll(() => focusedText(page)).toBe('Your tokens');
    const after = await stack.server.fetch('/api/pages', { headers: { Authorization: `Bearer ${plaintext}` } });
    expect(after.status).toBe(401);
    expect(cspViolations).toEqual([]);
  });

  it('approves a device request: the client asked for no scopes, gets the read scopes and its poll returns the PAT', async () => {
    const start = await stack.server.fetch('/api/oauth/device/code', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'pks-cli-laptop', expires_in_days: 90, scopes: [] }),
    });
    expect(start.status).toBe(200);
    const codes = (await start.json()) as {
      device_code: string;
      user_code: string;
      verification_uri_complete: string;
      interval: number;
    };
    const poll = () =>
      stack.server.fetch('/api/oauth/device/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device_code: codes.device_code }),
      });
    const pending = await poll();
    const firstPollAt = Date.now();
    expect(pending.status).toBe(400);
    expect(await pending.json()).toEqual({ error: 'authorization_pending' });

    const { page, cspViolations } = await open('/');
    await page.goto(codes.verification_uri_complete);
    expect(await page.getByLabel('Code shown by the client').inputValue()).toBe(codes.user_code);
    await page.getByText('The client is waiting for you to approve or deny it.').waitFor();
    await page
      .getByText('The client asked for no scopes, and a token without scopes is refused by every endpoint.')
      .waitFor();
    expect(await page.getByLabel('Token name').inputValue()).toBe('pks-cli-laptop');
    for (const [scope, checked] of [
      ['wiki:read', true],
      ['wiki:write', false],
      ['papers:read', true],
      ['papers:write', false],
      ['graph:read', true],
    ] as const) {
      expect(await page.getByRole('checkbox', { name: scope }).isChecked()).toBe(checked);
    }
    // The request's time runs down on the page (requests live 600 s).
    const countdown = page.getByRole('timer');
    const shown = await countdown.textContent();
    expect(shown).toMatch(/^Expires in (10:00|9:[0-5]\d)\.$/);
    await expect.poll(() => countdown.textContent()).not.toBe(shown);
    expect(await screenshotsAndAxe(page, 'device-pending')).toEqual([]);

    await page.getByLabel('Token name').fill('laptop via device flow');
    await page.getByRole('checkbox', { name: 'graph:read' }).uncheck();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved. The client receives its token at its next poll').waitFor();
    await expect.poll(() => focusedId(page)).toBe('device-status');
    expect(await page.getByRole('timer').count()).toBe(0);
    expect(await screenshotsAndAxe(page, 'device-approved')).toEqual([]);

    // RFC 8628: the client waits `interval` seconds between polls (a faster poll is answered slow_down).
    await new Promise((r) => setTimeout(r, Math.max(0, codes.interval * 1000 - (Date.now() - firstPollAt))));
    const granted = await poll();
    expect(granted.status).toBe(200);
    const body = (await granted.json()) as { access_token: string; name: string; scopes: string[] };
    expect(body.access_token).toMatch(/^pat_[A-Za-z0-9]{32}$/);
    expect(body.name).toBe('laptop via device flow');
    expect(body.scopes).toEqual(['wiki:read', 'papers:read']);
    const pages = await stack.server.fetch('/api/pages', { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(pages.status).toBe(200);

    // The page sees the client take its token by itself, without a reload.
    await page.getByText('Completed. The client has received its token').waitFor();
    expect(cspViolations).toEqual([]);
  });

  it('denies a device request, and explains an unknown or malformed code', async () => {
    const start = await stack.server.fetch('/api/oauth/device/code', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'unknown tool', expires_in_days: 7, scopes: ['papers:write'] }),
    });
    const codes = (await start.json()) as { device_code: string; user_code: string };
    const { page } = await open('/device');
    await page.getByLabel('Code shown by the client').fill(codes.user_code.replace('-', '').toLowerCase());
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('The client is waiting for you').waitFor();
    // The scopes the client asked for are pre-checked, nothing else.
    expect(await page.getByRole('checkbox', { name: 'papers:write' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'wiki:read' }).isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied. The client has been told that access was refused.').waitFor();
    await expect.poll(() => focusedId(page)).toBe('device-status');
    const denied = await stack.server.fetch('/api/oauth/device/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_code: codes.device_code }),
    });
    expect(await denied.json()).toEqual({ error: 'access_denied' });

    await page.getByLabel('Code shown by the client').fill('WDJB-MJHT');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('No sign-in request has this code. Check the code the client shows.').waitFor();
    expect(await screenshotsAndAxe(page, 'device-unknown')).toEqual([]);
    await page.getByLabel('Code shown by the client').fill('0000');
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('That is not a valid code: codes have 8 letters and digits, like WDJB-MJHT.').waitFor();
  });

  it('sends the user to /login?next=… when the server answers 401, and names the missing scope on a 403', async () => {
    const { page } = await open('/');
    await page.route('**/api/stats', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({
          detail: 'insufficient scope: this token lacks wiki:read (mint a new PAT at /pat with the required scope)',
          obj: 'wiki',
          act: 'read',
        }),
      }),
    );
    await page.goto(`${stack.url}/`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'This needs the wiki:read scope, which your credential does not have.' })
      .waitFor();
    await page.unroute('**/api/stats');

    // A session the server no longer accepts (signed by another key) is a 401 on the next call.
    await page.evaluate(() => {
      const stored = JSON.parse((globalThis as unknown as PageGlobals).localStorage.getItem('pocketbase_auth')!) as {
        token: string;
      };
      const [h, p] = stored.token.split('.');
      (globalThis as unknown as PageGlobals).localStorage.setItem(
        'pocketbase_auth',
        JSON.stringify({ ...stored, token: `${h}.${p}.invalidsignature` }),
      );
    });
    await page.goto(`${stack.url}/wiki?status=published`);
    await page.waitForURL(`${stack.url}/login?next=${encodeURIComponent('/wiki?status=published')}`);
    expect(await sessionToken(page)).toBe('');
  });

  it('signs out: the server revokes the session and the page forgets the token', async () => {
    const { page } = await open('/');
    const token = await sessionToken(page);
    const usePat = () => fetch(`${stack.url}/api/pat`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await usePat()).status).toBe(200);
    const logoutRequest = page.waitForRequest(
      (r) => r.url() === `${stack.url}/api/collections/users/auth-logout` && r.method() === 'POST',
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await logoutRequest).headers()['authorization']).toBe(`Bearer ${token}`);
    await page.waitForURL(`${stack.url}/login`);
    expect(await sessionToken(page)).toBe('');
    await page.goto(`${stack.url}/pat`);
    await page.waitForURL(`${stack.url}/login?next=%2Fpat`);
    expect((await usePat()).status).toBe(401);
  });

  it('has no CSP violations or console errors on any screen it visited', () => {
    expect(opened.flatMap((w) => w.cspViolations)).toEqual([]);
    // The only console errors allowed are the 401/403 answers the tests provoked on purpose.
    expect(opened.flatMap((w) => w.consoleErrors).filter((e) => !/status of 40[0134]/.test(e))).toEqual([]);
  });
});
