/** The client side of the device authorization flow (RFC 8628; CONTRACT §7.8, §16.4 step 3). */
import type { DeviceCode, DeviceToken } from '../../../shared/api/device.js';
import type { CliContext } from '../../context.js';
import { CliExit, EXIT } from '../../errors.js';
import { openInBrowser } from '../../browser.js';
import { jsonObject } from '../../http/json-body.js';

export interface DeviceFlowInput {
  readonly baseUrl: string;
  readonly insecure: boolean;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expiresDays: number;
  readonly timeoutS: number;
  readonly openBrowser: boolean;
}

export interface MintedToken {
  readonly plaintext: string;
  readonly name: string;
  readonly scopes: string[];
  readonly expires_at: string;
}

const START_TIMEOUT_MS = 15_000;
const SLOW_DOWN_STEP_S = 5;

export async function runDeviceFlow(ctx: CliContext, input: DeviceFlowInput): Promise<MintedToken> {
  const api = ctx.api({
    baseUrl: input.baseUrl,
    insecure: input.insecure,
    timeoutMs: START_TIMEOUT_MS,
    anonymous: true,
  });
  const { body: code } = await api.json<DeviceCode>('POST', '/api/oauth/device/code', {
    ok: [200],
    body: { name: input.name, expires_in_days: input.expiresDays, scopes: input.scopes },
  });
  let interval = Number.isFinite(code.interval) && code.interval > 0 ? code.interval : 5;
  const waitS = Math.min(input.timeoutS, Number.isFinite(code.expires_in) ? code.expires_in : input.timeoutS);
  ctx.io.stderr(
    [
      'To finish logging in, open this URL in a browser:',
      `  ${code.verification_uri}`,
      `and enter the code:  ${code.user_code}`,
      `(or open ${code.verification_uri_complete})`,
      `Waiting for approval (up to ${formatSeconds(waitS)}s, polling every ${formatSeconds(interval)}s)…`,
    ].join('\n') + '\n',
  );
  if (input.openBrowser) openInBrowser(code.verification_uri_complete);

  const deadline = Date.now() + waitS * 1000;
  const timedOut = () =>
    new CliExit(EXIT.failure, `Error: Device flow timed out after ${formatSeconds(waitS)}s without an approve/deny.`);
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw timedOut();
    await ctx.sleep(Math.min(interval * 1000, remaining));
    if (Date.now() >= deadline) throw timedOut();
    const res = await api.request('POST', '/api/oauth/device/token', {
      kind: 'read',
      json: { device_code: code.device_code },
    });
    const text = await res.text();
    if (res.status === 200) {
      const body = jsonObject<Partial<DeviceToken>>(res, text);
      return {
        plaintext: body.plaintext ?? body.access_token ?? '',
        name: body.name ?? input.name,
        scopes: Array.isArray(body.scopes) ? body.scopes : [...input.scopes],
        expires_at: body.expires_at ?? '',
      };
    }
    const error = errorCode(text) ?? `HTTP ${res.status} ${res.statusText}`.trim();
    switch (error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        interval += SLOW_DOWN_STEP_S;
        continue;
      case 'access_denied':
        throw new CliExit(EXIT.failure, 'Error: Authorization denied in the browser.');
      case 'expired_token':
        throw new CliExit(EXIT.failure, 'Error: Device code expired before approval.');
      default:
        throw new CliExit(EXIT.failure, `Error: server rejected device-code poll: ${error}`);
    }
  }
}

function errorCode(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' ? body.error : null;
  } catch {
    return null;
  }
}

const formatSeconds = (s: number) => String(Math.round(s * 1000) / 1000);
