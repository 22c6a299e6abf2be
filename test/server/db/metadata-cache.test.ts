/**
 * The paper-metadata cache repository (CONTRACT §18.1) on a real SQLite database: migration 2's table, rows by id,
 * DOI and OpenAlex id, replacement, and rows that outlive the connection.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion, type Db } from '../../../src/server/db/database.js';
import { SqliteMetadataCache, type CachedPaper } from '../../../src/server/papers/metadata/metadata-cache.js';

let dir: string;
let db: Db;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-metadata-cache-'));
  db = openDatabase(dir);
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const paper: CachedPaper = {
  preprintId: 'quant-ph/9508027',
  metadata: {
    title: 'Polynomial-Time Algorithms for Prime Factorization',
    authors: ['Peter W. Shor'],
    abstract: 'A digital computer is generally believed to be an efficient universal computing device.',
    published: '1995-08-30',
    doi: '10.1137/s0097539795293172',
    openalex_id: null,
    cited_by_count: null,
    source: 'arxiv',
  },
};

describe('SqliteMetadataCache', () => {
  it('migration 2 creates the table: the schema is at the newest version', () => {
    expect(schemaVersion(db)).toBeGreaterThanOrEqual(2);
    const columns = db.prepare("SELECT name FROM pragma_table_info('paper_metadata')").all() as { name: string }[];
    expect(columns.map((c) => c.name)).toEqual([
      'preprint_id',
      'title',
      'authors',
      'abstract',
      'published',
      'doi',
      'openalex_id',
      'cited_by_count',
      'source',
      'fetched_at',
    ]);
  });

  it('a miss is null; a row reads back by id and by DOI exactly as put', async () => {
    const cache = new SqliteMetadataCache(db);
    expect(await cache.get(paper.preprintId)).toBeNull();
    await cache.put(paper, new Date('2026-05-01T12:00:00Z'));
    expect(await cache.get(paper.preprintId)).toEqual(paper);
    expect(await cache.findByDoi('10.1137/s0097539795293172')).toEqual(paper);
    expect(await cache.findByDoi('10.1137/other')).toBeNull();
    expect(await cache.findByOpenAlexId('W1')).toBeNull();
    const row = db.prepare('SELECT fetched_at FROM paper_metadata').get() as { fetched_at: number };
    expect(row.fetched_at).toBe(Date.parse('2026-05-01T12:00:00Z'));
  });

  it('put replaces the row of the same paper (an OpenAlex row completed by arXiv)', async () => {
    const cache = new SqliteMetadataCache(db);
    const fromOpenAlex: CachedPaper = {
      preprintId: '2501.00010',
      metadata: {
        title: 'A paper',
        authors: [],
        abstract: '',
        published: '2025-01-02',
        doi: '10.1000/abc',
        openalex_id: 'W42',
        cited_by_count: 7,
        source: 'openalex',
      },
    };
    await cache.put(fromOpenAlex, new Date());
    expect(await cache.findByOpenAlexId('W42')).toEqual(fromOpenAlex);
    const completed: CachedPaper = {
      preprintId: '2501.00010',
      metadata: { ...fromOpenAlex.metadata, abstract: 'An abstract.', authors: ['A. Author'], source: 'arxiv' },
    };
    await cache.put(completed, new Date());
    expect(await cache.get('2501.00010')).toEqual(completed);
    expect(db.prepare('SELECT count(*) AS n FROM paper_metadata').get()).toEqual({ n: 1 });
  });

  it('rows outlive the connection (no expiry)', async () => {
    await new SqliteMetadataCache(db).put(paper, new Date('2020-01-01T00:00:00Z'));
    db.close();
    db = openDatabase(dir);
    expect(await new SqliteMetadataCache(db).get(paper.preprintId)).toEqual(paper);
  });
});
