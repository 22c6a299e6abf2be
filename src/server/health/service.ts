import { settleWithin } from '../../shared/deadline.js';
import { rfc3339 } from '../../shared/time.js';
import { VERSION } from '../../shared/version.js';
import type { ParserCounters } from '../access/service.js';
import type { Check, Probe } from './probes.js';

export const PROBE_TIMEOUT_MS = 5_000;

export interface HealthBody {
  code: 200;
  message: string;
  data: {
    status: 'healthy' | 'degraded';
    version: string;
    uptime_seconds: number;
    time: string;
    /** `database` (CONTRACT §21) is checked when the service was given the user database's probe. */
    checks: { rawstore: Check; graphdb: Check; wiki: Check; database?: Check };
    parser?: ParserCounters;
  };
}

/** Field values an anonymous caller must not see (CONTRACT §8.1). */
const REDACTED_FIELDS = ['endpoint', 'uri', 'database', 'dir', 'error'] as const;

/** A probe's check; an error, or a timeout after `ms`, is an `error` check. */
async function checkWithin(probe: Probe, ms: number): Promise<Check> {
  const run = probe.run().catch((err: unknown): Check => ({
    status: 'error',
    ...probe.fields,
    error: (err as Error)?.message ?? String(err),
  }));
  return settleWithin(run, ms, (): Check => ({
    status: 'error',
    ...probe.fields,
    error: `timed out after ${ms / 1000} s`,
  }));
}

/** How long one round of probe results answers health calls (a burst of calls runs the probes once). */
export const PROBE_CACHE_MS = 2_000;

type Checks = HealthBody['data']['checks'];

export class HealthService {
  private readonly startedAt = Date.now();
  /** The round in flight, or the last one while it is fresh: every caller shares it (single flight). */
  private round: { readonly checks: Promise<Checks>; settledAt: number | null } | null = null;

  constructor(
    private readonly probes: { rawstore: Probe; graphdb: Probe; wiki: Probe; database?: Probe },
    private readonly timeoutMs = PROBE_TIMEOUT_MS,
    /** The paper-access parser counters (`data.parser`), when the feature is on. */
    private readonly parser: (() => ParserCounters) | null = null,
    private readonly cacheMs = PROBE_CACHE_MS,
  ) {}

  /** Runs the three probes in parallel, each bounded by the probe timeout. */
  private async probe(): Promise<Checks> {
    const { database } = this.probes;
    const [rawstore, graphdb, wiki, db] = await Promise.all([
      checkWithin(this.probes.rawstore, this.timeoutMs),
      checkWithin(this.probes.graphdb, this.timeoutMs),
      checkWithin(this.probes.wiki, this.timeoutMs),
      database ? checkWithin(database, this.timeoutMs) : null,
    ]);
    return { rawstore, graphdb, wiki, ...(db ? { database: db } : {}) };
  }

  /** The current round's checks: a running round is joined, a settled one is reused for `cacheMs`. */
  private checks(): Promise<Checks> {
    const round = this.round;
    if (round && (round.settledAt === null || Date.now() - round.settledAt < this.cacheMs)) return round.checks;
    const next = { checks: this.probe(), settledAt: null as number | null };
    this.round = next;
    void next.checks.finally(() => {
      next.settledAt = Date.now();
    });
    return next.checks;
  }

  /** The health body; the probe results are at most `cacheMs` old, time and uptime are current. */
  async check(): Promise<HealthBody> {
    const checks = await this.checks();
    const degraded = Object.values(checks).some((c) => c.status === 'error');
    return {
      code: 200,
      message: degraded ? 'Dependency degraded.' : 'API is healthy.',
      data: {
        status: degraded ? 'degraded' : 'healthy',
        version: VERSION,
        uptime_seconds: Math.floor((Date.now() - this.startedAt) / 1000),
        time: rfc3339(new Date()),
        checks,
        ...(this.parser ? { parser: { ...this.parser() } } : {}),
      },
    };
  }
}

/** The same structure with internal addresses replaced by `"redacted"`, and no parser counters. */
export function redactHealth(body: HealthBody): HealthBody {
  const redact = (check: Check): Check => {
    const out: Check = { ...check };
    for (const field of REDACTED_FIELDS) {
      if (out[field] !== undefined && out[field] !== null) out[field] = 'redacted';
    }
    if (Array.isArray(out['buckets'])) out['buckets'] = out['buckets'].map(() => 'redacted');
    return out;
  };
  const { parser: _omitted, ...data } = body.data;
  return {
    ...body,
    data: {
      ...data,
      checks: {
        rawstore: redact(body.data.checks.rawstore),
        graphdb: redact(body.data.checks.graphdb),
        wiki: redact(body.data.checks.wiki),
        ...(body.data.checks.database ? { database: redact(body.data.checks.database) } : {}),
      },
    },
  };
}
