import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ForbiddenError, InvalidInputError, UnauthenticatedError } from '../../shared/domain-errors.js';
import type { Config } from '../config/types.js';
import { loginAllowed } from './allow-list.js';
import { PB_AUTH_FAILED, PB_NOT_ALLOWED, PB_TOKEN_REQUIRED } from './pocketbase.js';
import type { SessionService } from './sessions.js';
import { userRecord, type IdpProfile, type UserStore } from './users.js';

export type FetchLike = typeof fetch;

const IDP_TIMEOUT_MS = 15_000;

export interface OAuthLoginRequest {
  provider?: unknown;
  code?: unknown;
  codeVerifier?: unknown;
  redirectURL?: unknown;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** The PocketBase-compatible OAuth2 login against the configured IdP (CONTRACT §7.2, §12.5). */
export class OAuthService {
  constructor(
    private readonly config: Pick<Config, 'idp' | 'allowedIdpLogins' | 'adminIdpLogins'>,
    private readonly users: UserStore,
    private readonly sessions: SessionService,
    private readonly fetchImpl: FetchLike,
    private readonly logger?: Logger,
  ) {}

  /** `GET /api/collections/users/auth-methods`: a fresh state and PKCE pair per call. */
  authMethods() {
    const { idp } = this.config;
    const providers = [];
    if (idp.enabled) {
      const state = randomBytes(24).toString('base64url');
      const codeVerifier = randomBytes(32).toString('base64url');
      const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
      const query = new URLSearchParams({
        client_id: idp.clientId ?? '',
        response_type: 'code',
        scope: idp.scopes,
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      });
      const sep = idp.authUrl.includes('?') ? '&' : '?';
      providers.push({
        name: idp.name,
        displayName: idp.displayName,
        state,
        authURL: `${idp.authUrl}${sep}${query.toString()}&redirect_uri=`,
        codeVerifier,
        codeChallenge,
        codeChallengeMethod: 'S256' as const,
      });
    }
    return {
      password: { enabled: false, identityFields: [] },
      oauth2: { enabled: idp.enabled, providers },
      mfa: { enabled: false, duration: 0 },
      otp: { enabled: false, duration: 0 },
    };
  }

  /**
   * `auth-with-oauth2`: code exchange, userinfo, allow-list, upsert, session token. `expectedRedirectURL` is this
   * server's own callback; any other redirect target (another origin) is refused before the IdP is contacted.
   */
  async login(body: OAuthLoginRequest, expectedRedirectURL: string) {
    const { idp } = this.config;
    const code = str(body.code);
    const codeVerifier = str(body.codeVerifier);
    const redirectURL = str(body.redirectURL);
    if (!idp.enabled || str(body.provider) !== idp.name || code === '' || redirectURL === '') {
      throw new InvalidInputError(PB_AUTH_FAILED);
    }
    if (redirectURL !== expectedRedirectURL) {
      this.logger?.warn({ redirectURL }, "sign-in refused: redirect URL is not this server's callback");
      throw new InvalidInputError(PB_AUTH_FAILED);
    }
    let rawUser: Record<string, unknown>;
    let profile: IdpProfile;
    try {
      const accessToken = await this.exchange(code, codeVerifier, redirectURL);
      rawUser = await this.getJson(idp.userinfoUrl, accessToken);
      const providerUserId = str(rawUser[idp.idClaim]);
      if (providerUserId === '') throw new Error(`userinfo has no ${idp.idClaim}`);
      let email = str(rawUser['email']);
      if (email === '' && idp.provider === 'github') email = await this.githubPrimaryEmail(accessToken);
      profile = {
        provider: idp.name,
        providerUserId,
        login: str(rawUser[idp.loginClaim]).trim(),
        email,
        name: str(rawUser['name']),
        avatar: str(rawUser['avatar_url']) || str(rawUser['picture']),
      };
      // Nothing can store NUL (PostgreSQL TEXT refuses it), and stripping it could turn a login into an allowed one.
      if (Object.values(profile).some((v) => v.includes('\u0000'))) throw new Error('userinfo holds a NUL character');
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, 'identity provider sign-in failed');
      throw new InvalidInputError(PB_AUTH_FAILED);
    }
    if (!loginAllowed(this.config, profile.login)) {
      this.logger?.info({ login: profile.login }, 'sign-in refused: login not in the allow-list');
      throw new ForbiddenError(PB_NOT_ALLOWED);
    }
    const { user, isNew } = await this.users.upsertFromIdp(profile);
    return {
      token: this.sessions.issue(user),
      record: userRecord(user),
      meta: {
        id: profile.providerUserId,
        name: profile.name,
        username: profile.login,
        email: profile.email,
        avatarURL: profile.avatar,
        accessToken: '',
        refreshToken: '',
        expiry: '',
        isNew,
        rawUser,
      },
    };
  }

  /**
   * `auth-refresh`: a fresh 14-day token for a valid session whose login is still allowed, never past the
   * session's absolute lifetime.
   */
  async refresh(token: string | null) {
    const session = token ? await this.sessions.verifyToken(token) : null;
    if (!session) throw new UnauthenticatedError(PB_TOKEN_REQUIRED);
    if (!loginAllowed(this.config, session.holder.login)) throw new ForbiddenError(PB_NOT_ALLOWED);
    return { token: this.sessions.renew(session), record: userRecord(session.holder) };
  }

  /** `auth-logout`: ends every session of the token's user (tokens are renewed on every page load, so all go). */
  async logout(token: string | null): Promise<void> {
    const session = token ? await this.sessions.verifyToken(token) : null;
    if (!session) throw new UnauthenticatedError(PB_TOKEN_REQUIRED);
    await this.sessions.revokeAll(session.holder.id);
  }

  private async exchange(code: string, codeVerifier: string, redirectUri: string): Promise<string> {
    const { idp } = this.config;
    const form = new URLSearchParams({
      client_id: idp.clientId ?? '',
      client_secret: idp.clientSecret ?? '',
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
      grant_type: 'authorization_code',
    });
    const res = await this.fetchImpl(idp.tokenUrl, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/x-www-form-urlencoded',
        'User-Agent': 'pksd',
      },
      body: form.toString(),
      signal: AbortSignal.timeout(IDP_TIMEOUT_MS),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = Object.fromEntries(new URLSearchParams(text)); // some providers answer form-encoded
    }
    const token = str(json['access_token']);
    if (!res.ok || token === '') throw new Error(`token exchange failed: HTTP ${res.status} ${str(json['error'])}`);
    return token;
  }

  private async getJson<T = Record<string, unknown>>(url: string, accessToken: string): Promise<T> {
    const res = await this.fetchImpl(url, {
      headers: { Accept: 'application/json', Authorization: `Bearer ${accessToken}`, 'User-Agent': 'pksd' },
      signal: AbortSignal.timeout(IDP_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
    const json = (await res.json()) as unknown;
    if (!json || typeof json !== 'object') throw new Error(`GET ${url}: not a JSON object`);
    return json as T;
  }

  /** GitHub without a public email: the primary verified address from `<userinfo>/emails` (empty if none). */
  private async githubPrimaryEmail(accessToken: string): Promise<string> {
    try {
      const list = await this.getJson<unknown>(`${this.config.idp.userinfoUrl.replace(/\/$/, '')}/emails`, accessToken);
      if (!Array.isArray(list)) return '';
      const primary = list.find(
        (e: unknown) =>
          !!e &&
          typeof e === 'object' &&
          (e as { primary?: unknown }).primary === true &&
          (e as { verified?: unknown }).verified === true,
      ) as { email?: unknown } | undefined;
      return str(primary?.email);
    } catch {
      return '';
    }
  }
}
