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
    checks: { rawstore: Check; graphdb: Check; wiki: Check };
    parser?: ParserCounters;
  };
}

/** Field values an anonymous caller must not see (CONTRACT §8.1). */
const REDACTED_FIELDS = ['endpoint', 'uri', 'database', 'dir', 'error'] as const;

async function withTimeout(probe: Probe, ms: number): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Check>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'error', ...probe.fields, error: `timed out after ${ms / 1000} s` }),
      ms,
    );
  });
  try {
    return await Promise.race([
      probe.run().catch((err: unknown): Check => ({
        status: 'error',
        ...probe.fields,
        error: (err as Error)?.message ?? String(err),
      })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class HealthService {
  private readonly startedAt = Date.now();

  constructor(
    private readonly probes: { rawstore: Probe; graphdb: Probe; wiki: Probe },
    private readonly timeoutMs = PROBE_TIMEOUT_MS,
    /** The paper-access parser counters (`data.parser`), when the feature is on. */
    private readonly parser: (() => ParserCounters) | null = null,
  ) {}

  /** Runs the three probes in parallel, each bounded by the probe timeout. */
  async check(): Promise<HealthBody> {
    const [rawstore, graphdb, wiki] = await Promise.all([
      withTimeout(this.probes.rawstore, this.timeoutMs),
      withTimeout(this.probes.graphdb, this.timeoutMs),
      withTimeout(this.probes.wiki, this.timeoutMs),
    ]);
    const degraded = [rawstore, graphdb, wiki].some((c) => c.status === 'error');
    return {
      code: 200,
      message: degraded ? 'Dependency degraded.' : 'API is healthy.',
      data: {
        status: degraded ? 'degraded' : 'healthy',
        version: VERSION,
        uptime_seconds: Math.floor((Date.now() - this.startedAt) / 1000),
        time: rfc3339(new Date()),
        checks: { rawstore, graphdb, wiki },
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
      },
    },
  };
}
