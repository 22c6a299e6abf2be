import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import neo4j from 'neo4j-driver';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureGraphSchema, GRAPH_SCHEMA_STATEMENTS } from '../../../src/server/graph/constraints.js';
import { planWikiGraph } from '../../../src/server/graph/wiki-plan.js';
import { syncWikiToGraph, type WikiSyncReport } from '../../../src/server/graph/wiki-sync.js';
import { loadWiki } from '../../../src/wiki/index.js';
import { pksd } from '../../support/cli.js';
import { graphEnv, useNeo4j } from '../../support/neo4j.js';
import { REPO_ROOT } from '../../support/server.js';

const db = useNeo4j();
let base: string;

function md(id: string, type: string, category: string | null, body: string, extra: string[] = []): string {
  return [
    '---',
    `id: ${id}`,
    `title: Title of ${id}`,
    `type: ${type}`,
    ...(category === null ? [] : [`category: ${category}`]),
    'tags: [t1, t2]',
    'created_at: 2026-01-05',
    'updated_at: 2026-02-01',
    'status: published',
    ...extra,
    '---',
    '',
    body,
    '',
  ].join('\n');
}

/** The purpose-built fixture: every mapping row of §6.3 and every relationship rule of §6.2. */
const FIXTURE: Record<string, string> = {
  'algo-a.md': md(
    'algo-a',
    'concept',
    'algorithm',
    'Uses [[prim-x]], [[concept-c|a concept]], [[paper-preprint-2101.00001v2]], [[algo-b#details]], ' +
      '[[missing-page]], [[algo-a]], [[#self]], [[comp-z]], [[src-other]] and `[[concept-e]]` in code.',
    ['related: [prim-x, missing-page]'],
  ),
  'algo-b.md': md('algo-b', 'entity', 'algorithm', 'Nothing linked.'),
  'prim-x.md': md('prim-x', 'concept', 'primitive', 'Builds on [[prim-y]].', ['prerequisites: [concept-c, prim-y]']),
  'prim-y.md': md('prim-y', 'concept', 'primitive', 'Leaf.'),
  'concept-c.md': md('concept-c', 'concept', 'technique', 'A technique.'),
  'concept-e.md': md('concept-e', 'entity', null, 'An entity without category.'),
  'person-p.md': md('person-p', 'entity', 'people', 'Wrote [[paper-preprint-2101.00001v2]] about [[algo-a]].'),
  'sources/paper-preprint-2101.00001v2.md': md(
    'paper-preprint-2101.00001v2',
    'source',
    'paper',
    'Introduces [[algo-a]] using [[concept-c]], by [[person-p]].',
  ),
  'sources/paper-preprint-quant-ph-9605043v3.md': md(
    'paper-preprint-quant-ph-9605043v3',
    'source',
    'paper',
    'Cites [[paper-preprint-2101.00001v2]].',
  ),
  'sources/paper-preprint-bogus.md': md('paper-preprint-bogus', 'source', 'paper', 'Links [[algo-a]].'),
  'comp-z.md': md('comp-z', 'comparison', null, 'Compares [[algo-a]] and [[algo-b]].'),
  'src-other.md': md('src-other', 'source', 'blog', 'A blog post about [[algo-a]].'),
};

async function writeFixture(dir: string, files: Record<string, string>): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
}

async function query(cypher: string, params: Record<string, unknown> = {}) {
  const { records } = await db.graph.driver.executeQuery(cypher, params);
  return records.map((r) => r.toObject() as Record<string, unknown>);
}

const num = (v: unknown): number => (neo4j.isInt(v) ? (v as { toNumber(): number }).toNumber() : (v as number));

async function labelCounts(): Promise<Record<string, number>> {
  const rows = await query('MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY l');
  return Object.fromEntries(rows.map((r) => [r['l'] as string, num(r['c'])]));
}

async function edges(): Promise<string[]> {
  const rows = await query(
    `MATCH (a)-[r]->(b)
     RETURN type(r) AS t, CASE WHEN a:Paper THEN a.preprint_id ELSE a.wiki_id END AS a,
            CASE WHEN b:Paper THEN b.preprint_id ELSE b.wiki_id END AS b,
            r.source AS s, r.wiki_id AS w`,
  );
  return rows
    .map((r) => `${String(r['a'])} -${String(r['t'])}-> ${String(r['b'])} [${String(r['s'])}:${String(r['w'])}]`)
    .sort();
}

const sync = async (dir: string, options: { dryRun?: boolean; batchSize?: number } = {}): Promise<WikiSyncReport> =>
  syncWikiToGraph(db.graph, await loadWiki(dir), options);

const zeroCounters = {
  nodesCreated: 0,
  nodesDeleted: 0,
  relationshipsCreated: 0,
  relationshipsDeleted: 0,
  propertiesSet: 0,
  labelsAdded: 0,
  labelsRemoved: 0,
};

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-graph-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});
beforeEach(async () => {
  await db.graph.driver.executeQuery('MATCH (n) DETACH DELETE n');
});

describe('graph constraints (§6.4)', () => {
  it('creates every constraint and index idempotently', async () => {
    await ensureGraphSchema(db.graph);
    await ensureGraphSchema(db.graph);
    const constraints = (await query('SHOW CONSTRAINTS YIELD name RETURN name')).map((r) => r['name']);
    expect(constraints).toEqual(
      expect.arrayContaining([
        'paper_preprint_id',
        'algorithm_wiki_id',
        'primitive_wiki_id',
        'author_wiki_id',
        'concept_wiki_id',
        'parser_claim_preprint_id',
      ]),
    );
    const indexes = (await query('SHOW INDEXES YIELD name RETURN name')).map((r) => r['name']);
    expect(indexes).toEqual(
      expect.arrayContaining(['paper_openalex_id', 'paper_doi', 'paper_wiki_id', 'parser_claim_expires_at']),
    );
    expect(GRAPH_SCHEMA_STATEMENTS).toHaveLength(10);
  });
});

describe('wiki → graph sync', () => {
  it('maps the fixture to the nodes and relationships of §6.2–6.3', async () => {
    await ensureGraphSchema(db.graph);
    const dir = path.join(base, 'fixture');
    await writeFixture(dir, FIXTURE);
    // The asset side already knows one paper, with a citation edge that is not the wiki's.
    await db.graph.driver.executeQuery(
      `CREATE (:Paper {preprint_id: '2101.00001', has_pdf: true})-[:CITES]->(:Paper {preprint_id: '9999.00001'})`,
    );

    const report = await sync(dir);
    expect(report).toMatchObject({
      pages: 12,
      nodes: { Algorithm: 2, Primitive: 2, Author: 1, Concept: 2, Paper: 2 },
      nodesMerged: 9,
      nodesWritten: 9,
      nodesDeleted: 0,
      papersCleared: 0,
      relationships: {
        DEPENDS_ON: 3,
        AUTHORED: 1,
        PUBLISHES: 1,
        USES: 2,
        REFERENCES: 2,
        RELATED_TO: 1,
        LINKS_TO: 4,
      },
      relationshipsCreated: 14,
      relationshipsDeleted: 0,
      skippedPages: 3,
      warnings: [
        { page_id: 'paper-preprint-bogus', reason: "page id 'paper-preprint-bogus' yields no valid preprint id" },
      ],
    });
    expect(report.counters.nodesCreated).toBe(8); // one Paper node existed already
    expect(report.counters.relationshipsCreated).toBe(14);

    expect(await labelCounts()).toEqual({ Algorithm: 2, Author: 1, Concept: 2, Paper: 3, Primitive: 2 });
    expect(await edges()).toEqual(
      [
        '2101.00001 -CITES-> 9999.00001 [null:null]',
        'algo-a -DEPENDS_ON-> prim-x [wiki:algo-a]',
        'algo-a -USES-> concept-c [wiki:algo-a]',
        'algo-a -REFERENCES-> 2101.00001 [wiki:algo-a]',
        'algo-a -LINKS_TO-> algo-b [wiki:algo-a]',
        'algo-a -RELATED_TO-> prim-x [wiki:algo-a]',
        'prim-x -LINKS_TO-> prim-y [wiki:prim-x]',
        'prim-x -DEPENDS_ON-> concept-c [wiki:prim-x]',
        'prim-x -DEPENDS_ON-> prim-y [wiki:prim-x]',
        'person-p -AUTHORED-> 2101.00001 [wiki:person-p]',
        'person-p -LINKS_TO-> algo-a [wiki:person-p]',
        '2101.00001 -PUBLISHES-> algo-a [wiki:paper-preprint-2101.00001v2]',
        '2101.00001 -USES-> concept-c [wiki:paper-preprint-2101.00001v2]',
        '2101.00001 -LINKS_TO-> person-p [wiki:paper-preprint-2101.00001v2]',
        'quant-ph/9605043 -REFERENCES-> 2101.00001 [wiki:paper-preprint-quant-ph-9605043v3]',
      ].sort(),
    );

    const [algo] = await query('MATCH (n:Algorithm {wiki_id: "algo-b"}) RETURN properties(n) AS p');
    expect(algo!['p']).toEqual({
      wiki_id: 'algo-b',
      title: 'Title of algo-b',
      type: 'entity',
      category: 'algorithm',
      tags: ['t1', 't2'],
      status: 'published',
      created_at: '2026-01-05',
      updated_at: '2026-02-01',
      source: 'wiki',
    });
    const [concept] = await query('MATCH (n:Concept {wiki_id: "concept-e"}) RETURN properties(n) AS p');
    expect(concept!['p']).not.toHaveProperty('category');
    const [paper] = await query('MATCH (p:Paper {preprint_id: "2101.00001"}) RETURN properties(p) AS p');
    expect(paper!['p']).toEqual({
      preprint_id: '2101.00001',
      has_pdf: true,
      wiki_id: 'paper-preprint-2101.00001v2',
      wiki_title: 'Title of paper-preprint-2101.00001v2',
      wiki_status: 'published',
      wiki_tags: ['t1', 't2'],
    });
    expect(await query('MATCH (n {wiki_id: "comp-z"}) RETURN n')).toEqual([]);
    expect(await query('MATCH (n) WHERE n.wiki_id IN ["src-other", "paper-preprint-bogus"] RETURN n')).toEqual([]);
  });

  it('a second run with no changes writes nothing (counters all zero)', async () => {
    await ensureGraphSchema(db.graph);
    const dir = path.join(base, 'fixture-twice');
    await writeFixture(dir, FIXTURE);
    await sync(dir);
    const before = await edges();
    const again = await sync(dir, { batchSize: 2 });
    expect(again.counters).toEqual(zeroCounters);
    expect(again).toMatchObject({
      nodesMerged: 9,
      nodesWritten: 0,
      nodesDeleted: 0,
      papersCleared: 0,
      relationshipsCreated: 0,
      relationshipsDeleted: 0,
    });
    expect(await edges()).toEqual(before);
  });

  it('removes what deleted or changed pages no longer yield, keeping shared Paper nodes', async () => {
    await ensureGraphSchema(db.graph);
    const dir = path.join(base, 'fixture-delete');
    await writeFixture(dir, FIXTURE);
    await db.graph.driver.executeQuery(
      `CREATE (:Paper {preprint_id: 'quant-ph/9605043', has_md: true})-[:CITES]->(:Paper {preprint_id: '9999.00002'})`,
    );
    await sync(dir);

    const changed = { ...FIXTURE };
    delete changed['algo-b.md'];
    delete changed['sources/paper-preprint-quant-ph-9605043v3.md'];
    changed['prim-y.md'] = md('prim-y', 'concept', 'algorithm', 'Now an algorithm.'); // label changes
    changed['person-p.md'] = md('person-p', 'entity', 'people', 'Wrote [[paper-preprint-2101.00001v2]].');
    await writeFixture(dir, changed);
    const report = await sync(dir, { batchSize: 3 });
    expect(report).toMatchObject({
      nodesDeleted: 2, // Algorithm algo-b, Primitive prim-y
      papersCleared: 1,
      nodes: { Algorithm: 2, Primitive: 1, Author: 1, Concept: 2, Paper: 1 },
    });

    expect(await query('MATCH (n {wiki_id: "algo-b"}) RETURN n')).toEqual([]);
    expect(await query('MATCH (n:Primitive {wiki_id: "prim-y"}) RETURN n')).toEqual([]);
    expect(await query('MATCH (n:Algorithm {wiki_id: "prim-y"}) RETURN n.source AS s')).toEqual([{ s: 'wiki' }]);
    const [kept] = await query('MATCH (p:Paper {preprint_id: "quant-ph/9605043"}) RETURN properties(p) AS p');
    expect(kept!['p']).toEqual({ preprint_id: 'quant-ph/9605043', has_md: true });
    expect(await edges()).toEqual(
      [
        'quant-ph/9605043 -CITES-> 9999.00002 [null:null]',
        'algo-a -DEPENDS_ON-> prim-x [wiki:algo-a]',
        'algo-a -USES-> concept-c [wiki:algo-a]',
        'algo-a -REFERENCES-> 2101.00001 [wiki:algo-a]',
        'algo-a -RELATED_TO-> prim-x [wiki:algo-a]',
        'prim-x -LINKS_TO-> prim-y [wiki:prim-x]',
        'prim-x -DEPENDS_ON-> concept-c [wiki:prim-x]',
        'prim-x -DEPENDS_ON-> prim-y [wiki:prim-x]',
        'person-p -AUTHORED-> 2101.00001 [wiki:person-p]',
        '2101.00001 -PUBLISHES-> algo-a [wiki:paper-preprint-2101.00001v2]',
        '2101.00001 -USES-> concept-c [wiki:paper-preprint-2101.00001v2]',
        '2101.00001 -LINKS_TO-> person-p [wiki:paper-preprint-2101.00001v2]',
      ].sort(),
    );
    expect((await sync(dir)).counters).toEqual(zeroCounters);
  });

  it('a dry run reads and reports but writes nothing', async () => {
    const dir = path.join(base, 'fixture-dry');
    await writeFixture(dir, FIXTURE);
    const report = await sync(dir, { dryRun: true });
    expect(report).toMatchObject({ dryRun: true, nodesWritten: 9, relationshipsCreated: 14, counters: zeroCounters });
    expect(await labelCounts()).toEqual({});
  });

  it('syncs the bundled sample wiki with counts matching its pages', async () => {
    await ensureGraphSchema(db.graph);
    const dir = path.join(base, 'sample');
    await rm(dir, { recursive: true, force: true });
    await cp(path.join(REPO_ROOT, 'sample-wiki'), dir, { recursive: true });
    const snapshot = await loadWiki(dir);
    const plan = planWikiGraph(snapshot);
    const report = await syncWikiToGraph(db.graph, snapshot);
    expect(report.pages).toBe(15);
    expect(report.nodes).toEqual({ Algorithm: 2, Primitive: 3, Author: 1, Concept: 8, Paper: 1 });
    expect(await labelCounts()).toEqual({ Algorithm: 2, Author: 1, Concept: 8, Paper: 1, Primitive: 3 });
    const [{ c } = {}] = await query('MATCH ()-[r {source: "wiki"}]->() RETURN count(r) AS c');
    expect(num(c)).toBe(plan.edges.length);
    expect(plan.edges.length).toBeGreaterThan(20);
    // A few edges the sample's text implies.
    const all = await edges();
    expect(all).toContain('algo-shors-algorithm -DEPENDS_ON-> prim-phase-estimation [wiki:algo-shors-algorithm]');
    expect(all).toContain('person-peter-shor -AUTHORED-> quant-ph/9508027 [wiki:person-peter-shor]');
    expect(all).toContain('quant-ph/9508027 -LINKS_TO-> person-peter-shor [wiki:paper-preprint-quant-ph-9508027v2]');
    expect(all).toContain('algo-shors-algorithm -REFERENCES-> quant-ph/9508027 [wiki:algo-shors-algorithm]');
    // Second run: a no-op. Deleting a page removes its node.
    expect((await syncWikiToGraph(db.graph, await loadWiki(dir))).counters).toEqual(zeroCounters);
    await rm(path.join(dir, 'concepts', 'concept-surface-code.md'));
    const after = await syncWikiToGraph(db.graph, await loadWiki(dir));
    expect(after.nodesDeleted).toBe(1);
    expect(await query('MATCH (n {wiki_id: "concept-surface-code"}) RETURN n')).toEqual([]);
  });
});

describe('pksd wiki sync --full --from-repo', () => {
  const env = () => ({
    ...graphEnv(db.server),
    SVC_WIKI_DIR: path.join(base, 'cli'),
    SVC_DATA_DIR: path.join(base, 'cli-data'),
    SVC_RAW_DIR: path.join(base, 'cli-raw'),
    SVC_DB_DATA_DIR: path.join(base, 'cli-db'),
  });

  it('syncs, prints the summary, and a second run changes nothing', async () => {
    await writeFixture(path.join(base, 'cli'), FIXTURE);
    const dry = await pksd(['wiki', 'sync', '--full', '--from-repo', '--dry-run'], env());
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('nothing was written');
    expect(await labelCounts()).toEqual({});

    const first = await pksd(['wiki', 'sync', '--full', '--from-repo'], env());
    expect(first.stderr).toContain('warning: page paper-preprint-bogus skipped');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^pages: 12$/m);
    expect(first.stdout).toMatch(/^nodes merged: 9$/m);
    expect(first.stdout).toMatch(/^nodes by label: Algorithm 2, Primitive 2, Author 1, Concept 2, Paper 2$/m);
    expect(first.stdout).toMatch(/^nodes deleted: 0$/m);
    expect(first.stdout).toMatch(
      /^relationships: 14 by type DEPENDS_ON 3, AUTHORED 1, PUBLISHES 1, USES 2, REFERENCES 2, RELATED_TO 1, LINKS_TO 4$/m,
    );
    expect(first.stdout).toMatch(/^skipped pages: 3$/m);
    expect(first.stdout).toMatch(/^duration: \d+\.\d\ds$/m);

    const second = await pksd(['wiki', 'sync', '--full', '--from-repo'], env());
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^nodes written: 0$/m);
    expect(second.stdout).toMatch(
      /^graph writes: nodes created 0, nodes deleted 0, relationships created 0, relationships deleted 0, properties set 0$/m,
    );
  });

  it('exits 2 without --from-repo, without a graph, or without the wiki directory', async () => {
    expect((await pksd(['wiki', 'sync', '--full'], env())).code).toBe(2);
    const noGraph = await pksd(['wiki', 'sync', '--full', '--from-repo'], { ...env(), GRAPHDB_URI: '' });
    expect(noGraph.code).toBe(2);
    expect(noGraph.stderr).toContain('requires the graph');
    const noDir = await pksd(['wiki', 'sync', '--full', '--from-repo'], {
      ...env(),
      SVC_WIKI_DIR: path.join(base, 'none'),
    });
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('does not exist');
  });

  it('exits 1 when the graph is unreachable', async () => {
    await writeFixture(path.join(base, 'cli'), FIXTURE);
    const res = await pksd(['wiki', 'sync', '--full', '--from-repo'], { ...env(), GRAPHDB_URI: 'bolt://127.0.0.1:1' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('wiki sync failed');
  });
});
