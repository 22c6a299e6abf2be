/**
 * `pksd storage prune` (CONTRACT §15.5) against both backends, run in-process.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../../../src/server/storage/object-store.js';
import { formatAge, parseDuration, parseKind } from '../../../src/server/storage/prune.js';
import { writeObject } from '../../../src/server/storage/write.js';
import { pksd } from '../../support/cli.js';
import { useMoto } from '../../support/moto.js';
import { localFixture, objectStoreEnv, s3Fixture, type StoreFixture } from './backends.js';

const sha = (b: string) => createHash('sha256').update(b).digest('hex');

describe('durations and kinds', () => {
  it.each([
    ['30s', 30_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['2w', 1_209_600_000],
    ['1y', 31_536_000_000],
    ['1.5h', 5_400_000],
    ['.5d', 43_200_000],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', '5', 'h', '1x', '-1d', '1 d d'])('%j is refused', (text) => expect(parseDuration(text)).toBeNull());
  it('kinds', () => {
    expect(parseKind('md')).toBe('markdown');
    expect(parseKind('images')).toBe('images');
    expect(parseKind('json')).toBeNull();
  });
  it('ages', () => {
    expect([formatAge(5), formatAge(120), formatAge(7200), formatAge(200_000)]).toEqual(['5s', '2m', '2h', '2d']);
  });
});

const moto = useMoto();

describe.each([
  ['local', () => localFixture()],
  ['s3', () => s3Fixture(moto())],
] as const)('pksd storage prune (%s)', (name, make) => {
  let fx: StoreFixture;
  let dir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    fx = await make();
    dir = await mkdtemp(path.join(os.tmpdir(), 'pks-prune-'));
    env = {
      SVC_DATA_DIR: path.join(dir, 'data'),
      SVC_DB_DATA_DIR: path.join(dir, 'pb'),
      SVC_RAW_DIR: fx.root ?? path.join(dir, 'raw'),
      ...(fx.objectStore ? objectStoreEnv(fx.objectStore) : {}),
    };
    // a.pdf: current + 2 noncurrent; b.pdf: current + 1 noncurrent; c.md: current + 1 noncurrent.
    const put = (key: string, body: string, overwrite: boolean) =>
      writeObject(fx.store, key, Buffer.from(body), {
        sha256: sha(body),
        contentType: 'application/octet-stream',
        overwrite,
      });
    await put('pdf/2501/a.pdf', 'a1', false);
    await put('pdf/2501/a.pdf', 'a2-', true);
    await put('pdf/2501/a.pdf', 'a3--', true);
    await put('pdf/2502/b.pdf', 'b1', false);
    await put('pdf/2502/b.pdf', 'b2-', true);
    await put('markdown/2501/c.md', 'c1', false);
    await put('markdown/2501/c.md', 'c2-', true);
  });
  afterEach(async () => {
    await fx.close();
    await rm(dir, { recursive: true, force: true });
  });

  const noncurrent = async (prefix: string) =>
    (await collect(fx.store.listVersions(prefix))).filter((v) => !v.isLatest);

  it('--dry-run --json plans without deleting; then deletes; the current version is never touched', async () => {
    let run = await pksd(['storage', 'prune', '--keep-last', '1', '--dry-run', '--json'], env);
    expect(run.code).toBe(0);
    const planned = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(planned).toEqual([
      {
        key: '2501/a.pdf',
        version_id: expect.any(String),
        size: expect.any(Number),
        age_seconds: expect.any(Number),
        delete_marker: false,
        action: 'DELETE_PLANNED',
      },
    ]);
    expect(await noncurrent('pdf/')).toHaveLength(3);

    run = await pksd(['storage', 'prune', '--keep-last', '1'], env);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^KEY\s+VERSION_ID\s+SIZE\s+AGE\s+ACTION$/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(/^2501\/a\.pdf\s+\S+\s+\d+\s+\d+[smhd]\s+DELETED$/);
    expect(await noncurrent('pdf/2501/')).toHaveLength(1);
    expect(await noncurrent('pdf/2502/')).toHaveLength(1);
    expect((await fx.store.head('pdf/2501/a.pdf'))!.size).toBe(4);
  });

  it('--keep-last 0 with --kind md and --prefix deletes every eligible version of that kind only', async () => {
    const run = await pksd(
      ['storage', 'prune', '--keep-last', '0', '--kind', 'md', '--prefix', '2501/', '--json'],
      env,
    );
    expect(run.code).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { key: string }).key),
    ).toEqual(['2501/c.md']);
    expect(await noncurrent('markdown/')).toHaveLength(0);
    expect(await noncurrent('pdf/')).toHaveLength(3);
    expect(await fx.store.head('markdown/2501/c.md')).not.toBeNull();
  });

  it('--older-than excludes fresh versions', async () => {
    const run = await pksd(['storage', 'prune', '--keep-last', '0', '--older-than', '1d', '--json'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(await noncurrent('pdf/')).toHaveLength(3);
  });

  if (name === 's3') {
    it('a current delete marker is never touched; noncurrent versions behind it are eligible', async () => {
      await fx.store.delete('pdf/2502/b.pdf');
      const run = await pksd(['storage', 'prune', '--keep-last', '0', '--prefix', '2502/', '--json'], env);
      expect(run.code).toBe(0);
      const items = run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { delete_marker: boolean });
      expect(items).toHaveLength(2);
      expect(items.every((i) => !i.delete_marker)).toBe(true);
      const left = await collect(fx.store.listVersions('pdf/2502/'));
      expect(left).toEqual([expect.objectContaining({ isLatest: true, deleteMarker: true })]);
    });
  }

  it('usage errors exit 2', async () => {
    expect((await pksd(['storage', 'prune'], env)).code).toBe(2);
    expect((await pksd(['storage', 'prune', '--keep-last', 'x'], env)).code).toBe(2);
    expect((await pksd(['storage', 'prune', '--keep-last', '1', '--kind', 'json'], env)).code).toBe(2);
    expect((await pksd(['storage', 'prune', '--keep-last', '1', '--older-than', '3 days'], env)).code).toBe(2);
  });
});
