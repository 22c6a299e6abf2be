/**
 * The filter phase of `pksd scholarly bootstrap` (CONTRACT §15.8) on a generated snapshot: the kept set equals a
 * brute-force reference for every seed rule and both switches, kept lines are byte-identical to their source lines
 * in source order, the bucket layout and manifest, resuming after an interruption, decode errors.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSnapshotBucket, type SnapshotBucket } from '../../../src/server/scholarly/bucket.js';
import { filterSnapshot, type FilterOptions } from '../../../src/server/scholarly/filter.js';
import { openSource } from '../../../src/server/scholarly/source.js';
import { UpstreamError } from '../../../src/shared/domain-errors.js';
import { referenceFilter, workNumber, arxivOf } from './reference.js';
import { generateSnapshot, type GeneratedSnapshot } from './snapshot-gen.js';

let dir: string;
let snapshot: GeneratedSnapshot;
/** Versionless ids "in the metadata index": a few new-style ids, so index membership decides some seeds alone. */
let indexed: Set<string>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-scholarly-'));
  snapshot = await generateSnapshot(path.join(dir, 'source'));
  indexed = new Set();
  for (const part of snapshot.parts) {
    for (const line of part.lines) {
      const arxiv = arxivOf(JSON.parse(line.toString('utf8')) as Record<string, unknown>);
      if (arxiv !== null && /^\d{4}\./.test(arxiv) && indexed.size < 25 && Number(arxiv.slice(-1)) === 3) {
        indexed.add(arxiv);
      }
    }
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let runs = 0;
async function run(overrides: Partial<FilterOptions> = {}, bucketDir?: string) {
  const root = bucketDir ?? path.join(dir, `bucket-${++runs}`);
  const bucket = new LocalSnapshotBucket(root);
  const report = await filterSnapshot({
    source: openSource(snapshot.root),
    bucket,
    seedPattern: String.raw`\bquantum\b`,
    inIndex: (id) => indexed.has(id),
    references: true,
    citers: true,
    limitParts: null,
    entities: [],
    dryRun: false,
    tempDir: path.join(dir, 'tmp'),
    progress: () => undefined,
    now: () => new Date('2026-05-01T12:00:00.123Z'),
    ...overrides,
  });
  return { root, bucket, report };
}

interface Manifest {
  entries: { url: string; meta: { content_length: number; record_count: number } }[];
  meta: Record<string, number>;
  filter: Record<string, unknown>;
}

async function manifestOf(root: string): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(root, 'works/manifest'), 'utf8')) as Manifest;
}

/** Every kept line (bytes) in bucket order. */
async function keptLines(root: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const entry of (await manifestOf(root)).entries) {
    const bytes = gunzipSync(await readFile(path.join(root, entry.url)));
    expect(bytes.at(-1)).toBe(0x0a);
    let start = 0;
    for (let nl = bytes.indexOf(0x0a); nl >= 0; nl = bytes.indexOf(0x0a, start)) {
      out.push(bytes.subarray(start, nl));
      start = nl + 1;
    }
  }
  return out;
}

const idOfLine = (line: Buffer) => workNumber((JSON.parse(line.toString('utf8')) as { id: unknown }).id)!;

describe('the kept set equals the brute-force reference', () => {
  it.each([
    ['topics and concepts, references and citers', String.raw`\bquantum\b`, true, true],
    ['seeds only', String.raw`\bquantum\b`, false, false],
    ['references, no citers', String.raw`\bquantum\b`, true, false],
    ['citers, no references', String.raw`\bquantum\b`, false, true],
    ['another pattern (subfield and concept names)', 'condensed|lattice', true, true],
    ['a pattern nothing matches: category and index seeds only', 'zzz-no-match', true, true],
  ])('%s', async (_label, pattern, references, citers) => {
    const { root, report } = await run({ seedPattern: pattern, references, citers });
    const expected = referenceFilter(snapshot, {
      pattern: new RegExp(pattern, 'i'),
      inIndex: (id) => indexed.has(id),
      references,
      citers,
    });
    const lines = await keptLines(root);
    const ids = lines.map(idOfLine);
    expect(new Set(ids)).toEqual(expected.kept);
    expect(ids).toHaveLength(expected.kept.size);
    expect(report).toMatchObject({ seeds: expected.seeds.size, worksKept: expected.kept.size, worksRead: 600 });
    // Lines whose id or arXiv host only parsing can see (\\u escapes) are decided like the others.
    const escaped = [...snapshot.lineOf].filter(([, l]) => l.includes('\\u0057')).map(([id]) => id);
    expect(escaped.length).toBeGreaterThan(0);
    for (const id of escaped) expect(ids.includes(id)).toBe(expected.kept.has(id));
    // Byte-for-byte, in source order.
    for (const line of lines) expect(line.equals(snapshot.lineOf.get(idOfLine(line))!)).toBe(true);
    const order = [...snapshot.lineOf.keys()].filter((id) => expected.kept.has(id));
    expect(ids).toEqual(order);
  });

  it('each seed rule contributes: category, topic/concept pattern (score ≥ 0.3), index membership', async () => {
    const base = { inIndex: () => false, references: false, citers: false };
    const none = referenceFilter(snapshot, { ...base, pattern: /zzz-no-match/i });
    const topics = referenceFilter(snapshot, { ...base, pattern: /\bquantum\b/i });
    const withIndex = referenceFilter(snapshot, {
      ...base,
      pattern: /zzz-no-match/i,
      inIndex: (id) => indexed.has(id),
    });
    expect(none.seeds.size).toBeGreaterThan(0); // quant-ph/ ids
    expect(topics.seeds.size).toBeGreaterThan(none.seeds.size);
    expect(withIndex.seeds.size).toBeGreaterThan(none.seeds.size);
    // The concept threshold decides: scores 0.29 do not count, 0.3 does.
    const concept = referenceFilter(snapshot, { ...base, pattern: /^qubit$/i });
    const lowScoreOnly = [...snapshot.lineOf.values()].filter((l) => {
      const w = JSON.parse(l.toString('utf8')) as { concepts: { display_name: string; score: number }[] };
      return w.concepts.some((c) => c.display_name === 'Qubit' && c.score < 0.3);
    });
    expect(lowScoreOnly.length).toBeGreaterThan(0);
    const { root } = await run({ seedPattern: '^qubit$', references: false, citers: false, inIndex: () => false });
    expect(new Set((await keptLines(root)).map(idOfLine))).toEqual(concept.kept);
  });
});

describe('bucket layout', () => {
  it('parts under works/updated_date=…/part_NNNN.jsonl.gz with record_count and source_url; then the manifest', async () => {
    const { root, report } = await run();
    const manifest = await manifestOf(root);
    expect(manifest.entries.map((e) => e.url)).toEqual([
      'works/updated_date=2025-01-01/part_0000.jsonl.gz',
      'works/updated_date=2025-02-15/part_0000.jsonl.gz',
      'works/updated_date=2025-01-01/part_0001.jsonl.gz',
    ]);
    for (const [i, entry] of manifest.entries.entries()) {
      const file = path.join(root, entry.url);
      const sidecar = JSON.parse(await readFile(`${file}.meta.json`, 'utf8')) as { metadata: Record<string, string> };
      expect(sidecar.metadata).toMatchObject({
        record_count: String(entry.meta.record_count),
        source_url: snapshot.parts[i]!.url,
      });
      expect(entry.meta.content_length).toBe((await readFile(file)).length);
    }
    expect(manifest.meta).toEqual({
      content_length: manifest.entries.reduce((n, e) => n + e.meta.content_length, 0),
      record_count: report.worksKept,
    });
    expect(manifest.filter).toEqual({
      source: snapshot.root,
      seed_pattern: String.raw`\bquantum\b`,
      references: true,
      citers: true,
      filtered_at: '2026-05-01T12:00:00Z',
    });
    expect(report).toMatchObject({ partsRead: 3, partsWritten: 3, partsPresent: 0 });
  });

  it('--limit-parts reads only the first parts', async () => {
    const { root, report } = await run({ limitParts: 2 });
    expect(report).toMatchObject({ partsRead: 2, worksRead: 400 });
    expect((await manifestOf(root)).entries.map((e) => e.url)).toEqual([
      'works/updated_date=2025-01-01/part_0000.jsonl.gz',
      'works/updated_date=2025-02-15/part_0000.jsonl.gz',
    ]);
  });

  it('a part with no kept line is not written', async () => {
    // Source: the first generated part, then a part of works without an arXiv id (never seeds).
    const root = path.join(dir, 'no-seeds-source');
    const withoutArxiv = snapshot.parts[1]!.lines.filter((l) => arxivOf(JSON.parse(l.toString('utf8'))) === null);
    const parts = [snapshot.parts[0]!.lines, withoutArxiv];
    const rels = ['data/works/updated_date=2025-01-01/part_000.gz', 'data/works/updated_date=2025-01-01/part_001.gz'];
    for (const [i, rel] of rels.entries()) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), gzipSync(Buffer.concat(parts[i]!.flatMap((l) => [l, Buffer.from('\n')]))));
    }
    await writeFile(
      path.join(root, 'data/works/manifest'),
      JSON.stringify({ entries: rels.map((rel) => ({ url: `s3://openalex/${rel}`, meta: {} })) }),
    );
    const { root: bucket, report } = await run({ source: openSource(root), references: false, citers: false });
    expect(report).toMatchObject({ partsRead: 2, partsWritten: 1 });
    expect((await manifestOf(bucket)).entries.map((e) => e.url)).toEqual([
      'works/updated_date=2025-01-01/part_0000.jsonl.gz',
    ]);
    await expect(readFile(path.join(bucket, 'works/updated_date=2025-01-01/part_0001.jsonl.gz'))).rejects.toMatchObject(
      { code: 'ENOENT' },
    );
  });

  it('a dry run reads and counts but writes nothing', async () => {
    const root = path.join(dir, 'dry');
    const { report } = await run({ dryRun: true }, root);
    expect(report.worksKept).toBeGreaterThan(0);
    expect(report.partsWritten).toBe(0);
    await expect(readFile(path.join(root, 'works/manifest'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('resuming', () => {
  it('an interrupted run, resumed, gives the same bucket (parts skipped when written with a matching source)', async () => {
    const complete = await run();
    const root = path.join(dir, 'interrupted');
    const local = new LocalSnapshotBucket(root);
    let puts = 0;
    const crashing: SnapshotBucket = {
      location: local.location,
      head: (key) => local.head(key),
      get: (key) => local.get(key),
      putFile: async (key, file, metadata) => {
        if (++puts === 2) throw new Error('simulated crash');
        await local.putFile(key, file, metadata);
      },
    };
    await expect(run({ bucket: crashing }, root)).rejects.toThrow('simulated crash');
    const resumed = await run({}, root);
    expect(resumed.report).toMatchObject({ partsPresent: 1, partsWritten: 2 });
    const a = await manifestOf(complete.root);
    const b = await manifestOf(root);
    expect(b).toEqual(a);
    for (const entry of a.entries) {
      expect(
        (await readFile(path.join(root, entry.url))).equals(await readFile(path.join(complete.root, entry.url))),
      ).toBe(true);
    }
    // Other filter settings do not reuse the parts.
    const changed = await run({ citers: false }, root);
    expect(changed.report.partsPresent).toBe(0);
  });
});

describe('decode errors are fatal and name the part and line', () => {
  async function brokenSource(mutate: (parts: Buffer[]) => void): Promise<string> {
    const root = path.join(dir, `broken-${++runs}`);
    const copy = await generateSnapshot(root, { works: 30, perPart: 10 });
    const parts = copy.parts.map((p) => Buffer.concat(p.lines.flatMap((l) => [l, Buffer.from('\n')])));
    mutate(parts);
    for (const [i, part] of copy.parts.entries()) {
      await writeFile(
        path.join(root, part.url.slice('s3://openalex/'.length)),
        i === 1 ? part_bytes(parts[i]!) : gzipSync(parts[i]!),
      );
    }
    return root;
  }
  let corruptGzip = false;
  const part_bytes = (bytes: Buffer) => {
    const gz = gzipSync(bytes);
    if (!corruptGzip) return gz;
    gz.fill(0x55, Math.floor(gz.length / 2), Math.floor(gz.length / 2) + 64);
    return gz;
  };

  it('a corrupt gzip part', async () => {
    corruptGzip = true;
    const root = await brokenSource(() => undefined);
    corruptGzip = false;
    const err = await run({ source: openSource(root) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^decode error in part s3:\/\/openalex\/data\/works\/updated_date=2025-02-15\/part_000\.gz, line \d+: gzip: /,
    );
  });

  it('a line that is not JSON, where only parsing can tell', async () => {
    const root = await brokenSource((parts) => {
      parts[1] = Buffer.concat([
        parts[1]!,
        Buffer.from('{"id":"https://openalex.org/W1","locations":[{"pdf_url":"https://arxiv.org/pdf/2101.00001"}],\n'),
      ]);
    });
    await expect(run({ source: openSource(root) })).rejects.toThrow(
      'decode error in part s3://openalex/data/works/updated_date=2025-02-15/part_000.gz, line 11: not a JSON object',
    );
  });

  it('a line that is not an object at all, even when nothing in it could be kept', async () => {
    const root = await brokenSource((parts) => {
      parts[1] = Buffer.concat([Buffer.from('[1, 2]\n'), parts[1]!]);
    });
    await expect(run({ source: openSource(root) })).rejects.toThrow(
      'decode error in part s3://openalex/data/works/updated_date=2025-02-15/part_000.gz, line 1: not a JSON object',
    );
  });
});
