/**
 * The pure difference of a wiki sync (CONTRACT §15.7): planned state against the wiki-owned state the graph holds.
 */
import { describe, expect, it } from 'vitest';
import { diffWikiGraph, type ExistingEdge, type WikiGraphState } from '../../../src/server/graph/wiki-diff.js';
import type { PlannedEdge, PlannedNode, WikiGraphPlan } from '../../../src/server/graph/wiki-plan.js';

const algo: PlannedNode = {
  ref: { label: 'Algorithm', key: 'algo-a' },
  pageId: 'algo-a',
  props: {
    wiki_id: 'algo-a',
    title: 'A',
    type: 'concept',
    category: 'algorithm',
    tags: ['t1', 't2'],
    status: 'published',
    created_at: '2026-01-05',
    updated_at: null,
    source: 'wiki',
  },
};
const prim: PlannedNode = {
  ref: { label: 'Primitive', key: 'prim-x' },
  pageId: 'prim-x',
  props: {
    wiki_id: 'prim-x',
    title: 'X',
    type: 'concept',
    category: 'primitive',
    tags: [],
    status: 'draft',
    created_at: null,
    updated_at: null,
    source: 'wiki',
  },
};
const paper: PlannedNode = {
  ref: { label: 'Paper', key: '2101.00001' },
  pageId: 'paper-preprint-2101.00001v2',
  props: { wiki_id: 'paper-preprint-2101.00001v2', wiki_title: 'P', wiki_status: 'review', wiki_tags: ['q'] },
};
const dependsOn: PlannedEdge = { type: 'DEPENDS_ON', from: algo.ref, to: prim.ref, wiki_id: 'algo-a' };
const publishes: PlannedEdge = {
  type: 'PUBLISHES',
  from: paper.ref,
  to: algo.ref,
  wiki_id: 'paper-preprint-2101.00001v2',
};

const plan: WikiGraphPlan = {
  pages: 3,
  nodes: [algo, prim, paper],
  edges: [dependsOn, publishes],
  skippedPages: 0,
  warnings: [],
};

/** The state the graph holds right after syncing `plan` (as the driver returns it). */
function syncedState(): { nodes: Map<string, Record<string, unknown>>; edges: ExistingEdge[] } {
  return {
    nodes: new Map<string, Record<string, unknown>>([
      ['Algorithm:algo-a', { ...algo.props }],
      // Absent properties come back as null.
      ['Primitive:prim-x', { ...prim.props }],
      ['Paper:2101.00001', { ...paper.props }],
    ]),
    edges: [
      { id: 'e1', key: 'DEPENDS_ON|Algorithm:algo-a|Primitive:prim-x', wikiId: 'algo-a' },
      { id: 'e2', key: 'PUBLISHES|Paper:2101.00001|Algorithm:algo-a', wikiId: 'paper-preprint-2101.00001v2' },
    ],
  };
}

const empty: WikiGraphState = { nodes: new Map(), edges: [] };

describe('diffWikiGraph', () => {
  it('an empty graph: every node written, every edge created, nothing stale', () => {
    expect(diffWikiGraph(plan, empty)).toEqual({
      nodeWrites: [algo, prim, paper],
      staleNodes: [],
      stalePapers: [],
      staleEdgeIds: [],
      newEdges: [dependsOn, publishes],
    });
  });

  it('the graph already in the planned state: nothing to write', () => {
    expect(diffWikiGraph(plan, syncedState())).toEqual({
      nodeWrites: [],
      staleNodes: [],
      stalePapers: [],
      staleEdgeIds: [],
      newEdges: [],
    });
  });

  it('an absent property equals null; list items compare as strings', () => {
    const state = syncedState();
    const { updated_at: _dropped, ...withoutUpdated } = algo.props;
    state.nodes.set('Algorithm:algo-a', { ...withoutUpdated });
    expect(diffWikiGraph(plan, state).nodeWrites).toEqual([]);
  });

  it('a changed property (also inside a list, or its order) rewrites only that node', () => {
    const state = syncedState();
    state.nodes.set('Algorithm:algo-a', { ...algo.props, title: 'old' });
    state.nodes.set('Paper:2101.00001', { ...paper.props, wiki_tags: ['q', 'extra'] });
    expect(diffWikiGraph(plan, state).nodeWrites).toEqual([algo, paper]);
    const reordered = syncedState();
    reordered.nodes.set('Algorithm:algo-a', { ...algo.props, tags: ['t2', 't1'] });
    expect(diffWikiGraph(plan, reordered).nodeWrites).toEqual([algo]);
  });

  it('nodes whose page is gone: wiki nodes deleted, Paper nodes only unlinked', () => {
    const state = syncedState();
    state.nodes.set('Concept:concept-gone', { wiki_id: 'concept-gone' });
    state.nodes.set('Author:person-gone', { wiki_id: 'person-gone' });
    state.nodes.set('Paper:quant-ph/9605043', { wiki_id: 'paper-preprint-quant-ph-9605043v3' });
    const diff = diffWikiGraph(plan, state);
    expect(diff.staleNodes).toEqual([
      { label: 'Concept', key: 'concept-gone' },
      { label: 'Author', key: 'person-gone' },
    ]);
    expect(diff.stalePapers).toEqual(['quant-ph/9605043']);
    expect(diff.nodeWrites).toEqual([]);
  });

  it('relationships: gone, duplicated, produced by another page, or between unsynced nodes are stale', () => {
    const state = syncedState();
    state.edges.push(
      { id: 'gone', key: 'USES|Algorithm:algo-a|Concept:concept-c', wikiId: 'algo-a' },
      { id: 'dup', key: 'DEPENDS_ON|Algorithm:algo-a|Primitive:prim-x', wikiId: 'algo-a' },
      { id: 'unsynced', key: null, wikiId: 'algo-a' },
    );
    state.edges[1] = { ...state.edges[1]!, wikiId: 'some-other-page' };
    const diff = diffWikiGraph(plan, state);
    expect(diff.staleEdgeIds).toEqual(['e2', 'gone', 'dup', 'unsynced']);
    // The edge whose producing page changed is re-created with the right `wiki_id`.
    expect(diff.newEdges).toEqual([publishes]);
  });
});
