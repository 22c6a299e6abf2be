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
 * like GitHub), `/user` and `/user/emails`.
 */
export async function startGitHubDouble(user: GitHubUser): Promise<GitHubDouble> {
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
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const redirectUri = url.searchParams.get('redirect_uri') ?? '';
        if (url.searchParams.get('client_id') !== clientId || redirectUri === '')
          return json(res, 400, { error: 'bad request' });
        const code = randomBytes(10).toString('hex');
        grants.set(code, {
          user: state.user,
          redirectUri,
          codeChallenge: url.searchParams.get('code_challenge'),
          clientId,
        });
        const target = new URL(redirectUri);
        target.searchParams.set('code', code);
        target.searchParams.set('state', url.searchParams.get('state') ?? '');
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
