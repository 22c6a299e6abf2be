import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The identity the double signs in as next (what GitHub's `/user` would answer). */
export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  avatar_url: string;
  /** Answer of `/user/emails`; defaults to one primary verified address when `email` is null. */
  emails?: { email: string; primary: boolean; verified: boolean }[];
}

interface Grant {
  user: GitHubUser;
  redirectUri: string;
  codeChallenge: string | null;
  clientId: string;
}

export interface GitHubDouble {
  readonly url: string;
  /** Settings that point pksd at this double. */
  readonly env: Record<string, string>;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who signs in at the next authorize request. */
  user: GitHubUser;
  /** Every request seen: method, path and (for the token endpoint) the form fields. */
  readonly requests: { method: string; path: string; form?: Record<string, string>; authorization?: string }[];
  close(): Promise<void>;
}

export interface GitHubDoubleOptions {
  /** A fixed loopback port (the development server); default: any free port. */
  readonly port?: number;
  /**
   * The development identity provider: authorize shows a form that asks for a name, and signs in as that person
   * (`nameUser`) instead of `user`.
   */
  readonly signInForm?: boolean;
}

/**
 * The login every person of the development identity provider has. CONTRACT §7.5's allow-list names logins and
 * has no wildcard, so "any name" is any person (own id, name and e-mail address) under this one allow-listed login.
 */
export const DEV_LOGIN = 'dev';

/** The development identity provider's person for a typed name: one stable id per name, all under one login. */
export function nameUser(name: string): GitHubUser {
  const clean = name.trim().replace(/\s+/g, ' ');
  const key = createHash('sha256').update(clean.toLowerCase()).digest();
  const slug =
    clean
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'user';
  return {
    // 48 bits: below 2^53, so a JSON number that round-trips.
    id: key.readUIntBE(0, 6) || 1,
    login: DEV_LOGIN,
    name: clean,
    email: `${slug}.${key.toString('hex', 0, 3)}@dev.localhost`,
    avatar_url: '',
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The development identity provider's sign-in page: a name, and the authorize parameters passed on. */
function signInPage(params: URLSearchParams): string {
  const hidden = [...params]
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development identity provider</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
label{display:block;font-weight:600;margin:1rem 0 .25rem}input[type=text]{font:inherit;width:100%;box-sizing:border-box;
padding:.4rem .5rem;border:1px solid #6e7781;border-radius:6px}button{font:inherit;margin-top:1rem;padding:.4rem 1rem;
border-radius:6px;border:1px solid #1f6f3a;background:#1f883d;color:#fff;cursor:pointer}p{color:#59636e}</style>
</head><body><main>
<h1>Development identity provider</h1>
<p>A stand-in for the real identity provider, for the development server only: any name signs in, each name as its
own person.</p>
<form method="post" action="/login/oauth/authorize">${hidden}
<label for="name">Your name</label>
<input id="name" name="name" type="text" required maxlength="100" autocomplete="name" value="Ada Lovelace" autofocus>
<button type="submit">Sign in</button>
</form></main></body></html>
`;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString('utf8')));
    req.on('end', () => resolve(data));
  });

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/**
 * A GitHub OAuth double on loopback speaking CONTRACT §12.5: authorize (302 back with `code` and `state`), the
 * token endpoint (checks client credentials, redirect URI and the PKCE verifier; errors as `{"error"}` with 200
 * like GitHub), `/user` and `/user/emails`. With `signInForm` (the development server's identity provider) authorize
 * first shows a page that asks for a name and posts back to itself.
 */
export async function startGitHubDouble(user: GitHubUser, options: GitHubDoubleOptions = {}): Promise<GitHubDouble> {
  const clientId = 'Iv1.testclient';
  const clientSecret = 'test-client-secret-value';
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, GitHubUser>();
  const requests: GitHubDouble['requests'] = [];
  const state = { user };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const entry: GitHubDouble['requests'][number] = { method: req.method ?? 'GET', path: url.pathname };
      if (req.headers.authorization) entry.authorization = req.headers.authorization;
      requests.push(entry);
      if (url.pathname === '/login/oauth/authorize' && (req.method === 'GET' || req.method === 'POST')) {
        // The sign-in form posts the authorize parameters back, with the name.
        if (req.method === 'POST' && !options.signInForm) return json(res, 404, { message: 'Not Found' });
        const params = req.method === 'POST' ? new URLSearchParams(await readBody(req)) : url.searchParams;
        const redirectUri = params.get('redirect_uri') ?? '';
        if (params.get('client_id') !== clientId || redirectUri === '') return json(res, 400, { error: 'bad request' });
        if (options.signInForm && req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          return res.end(signInPage(params));
        }
        const name = params.get('name')?.trim() ?? '';
        if (options.signInForm && name === '') return json(res, 400, { error: 'a name is required' });
        const code = randomBytes(10).toString('hex');
        grants.set(code, {
          user: options.signInForm ? nameUser(name) : state.user,
          redirectUri,
          codeChallenge: params.get('code_challenge'),
          clientId,
        });
        const target = new URL(redirectUri);
        target.searchParams.set('code', code);
        target.searchParams.set('state', params.get('state') ?? '');
        res.writeHead(302, { location: target.toString() });
        return res.end();
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
        entry.form = form;
        const grant = grants.get(form['code'] ?? '');
        if (form['client_id'] !== clientId || form['client_secret'] !== clientSecret) {
          return json(res, 200, { error: 'incorrect_client_credentials' });
        }
        if (!grant || grant.redirectUri !== form['redirect_uri'])
          return json(res, 200, { error: 'bad_verification_code' });
        const challenge = createHash('sha256')
          .update(form['code_verifier'] ?? '')
          .digest('base64url');
        if (grant.codeChallenge !== null && challenge !== grant.codeChallenge)
          return json(res, 200, { error: 'bad_verification_code' });
        grants.delete(form['code']!);
        const token = 'gho_' + randomBytes(12).toString('hex');
        tokens.set(token, grant.user);
        return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      const who = tokens.get((req.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
      if (req.method === 'GET' && (url.pathname === '/user' || url.pathname === '/user/emails')) {
        if (!who) return json(res, 401, { message: 'Bad credentials' });
        if (url.pathname === '/user') {
          const { emails: _emails, ...profile } = who;
          return json(res, 200, profile);
        }
        return json(
          res,
          200,
          who.emails ?? [{ email: `${who.login}@users.example.org`, primary: true, verified: true }],
        );
      }
      return json(res, 404, { message: 'Not Found' });
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clientId,
    clientSecret,
    env: {
      IDP_CLIENT_ID: clientId,
      IDP_CLIENT_SECRET: clientSecret,
      IDP_AUTH_URL: `${url}/login/oauth/authorize`,
      IDP_TOKEN_URL: `${url}/login/oauth/access_token`,
      IDP_USERINFO_URL: `${url}/user`,
    },
    get user() {
      return state.user;
    },
    set user(u: GitHubUser) {
      state.user = u;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
