/**
 * The one error type of the service: an HTTP status plus the exact JSON body to send. Domain code throws it;
 * the HTTP layer's error handler is the only place that turns it into a reply.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, body: string | Record<string, unknown>, headers: Record<string, string> = {}) {
    const payload = typeof body === 'string' ? { detail: body } : body;
    super(typeof payload['detail'] === 'string' ? payload['detail'] : `HTTP ${status}`);
    this.name = 'HttpError';
    this.status = status;
    this.body = payload;
    this.headers = headers;
  }
}

export const badRequest = (detail: string | Record<string, unknown>) => new HttpError(400, detail);
export const notFound = (detail: string | Record<string, unknown> = 'not found') => new HttpError(404, detail);
export const conflict = (detail: string | Record<string, unknown>) => new HttpError(409, detail);

/** A configuration problem: names the setting; `pksd` prints it on one line and exits 2. */
export class ConfigError extends Error {
  readonly setting: string;
  readonly reason: string;

  constructor(setting: string, reason: string) {
    super(`${setting}: ${reason}`);
    this.name = 'ConfigError';
    this.setting = setting;
    this.reason = reason;
  }
}
