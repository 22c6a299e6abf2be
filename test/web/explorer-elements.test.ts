/**
 * The explorer's pure parts: what the Cypher editor completes where (web/src/lib/cypher-completion.ts), the drawing
 * cap, merging an expansion and the expand query (web/src/lib/graph-elements.ts).
 */
import { describe, expect, it } from 'vitest';
import { completionSpot, type CompletionKind } from '../../web/src/lib/cypher-completion.js';
import {
  capElements,
  cypherString,
  mergeElements,
  neighboursQuery,
  type GEdge,
  type GNode,
} from '../../web/src/lib/graph-elements.js';

describe('completionSpot', () => {
  // The text before the cursor, split where the word being completed starts (`from`), and the kind of name it is.
  const cases: [context: string, word: string, kind: CompletionKind][] = [
    ['MATCH (n:', 'Alg', 'label'],
    ['MATCH (n:', '', 'label'],
    ['MATCH (:', 'Con', 'label'],
    ['MATCH ( n : ', 'Pa', 'label'],
    ['MATCH (n:Algorithm:', 'Pri', 'label'],
    ['MATCH (n:Algorithm|', 'Pri', 'label'],
    ['MATCH (a)-[r:', 'CI', 'relationship'],
    ['MATCH (a)-[:', '', 'relationship'],
    ['MATCH (a)-[r:USES|', 'DEP', 'relationship'],
    ['MATCH (a)-[r]->(b) WHERE a.', 'ti', 'property'],
    ['MATCH (a) RETURN a, ', 'coun', 'any'],
    // A map inside a pattern is not a label expression.
    ["MATCH (n {title: 'x'}) RETURN n.", '', 'property'],
  ];
  it.each(cases)('%j + %j → %s from the word', (context, word, kind) => {
    expect(completionSpot(context + word)).toEqual({ kind, from: context.length });
  });

  it('no word being typed and no request → nothing to complete', () => {
    expect(completionSpot('MATCH (n) ')).toBeNull();
  });

  it('an explicit request (Ctrl-Space) with nothing typed offers every name', () => {
    expect(completionSpot('MATCH (n) ', true)).toEqual({ kind: 'any', from: 10 });
  });
});

const node = (id: string): GNode => ({ id, labels: ['Concept'], properties: { title: id } });
const edge = (id: string, a: string, b: string): GEdge => ({
  id,
  type: 'USES',
  start_node: a,
  end_node: b,
  properties: {},
});

describe('capElements', () => {
  it('keeps a result at or under the cap as it is', () => {
    const all = { nodes: [node('a'), node('b')], edges: [edge('e', 'a', 'b')] };
    expect(capElements(all, 2)).toEqual({ drawn: all, hidden: 0 });
  });

  it('draws the first nodes and only the relationships among them, and says how many were left out', () => {
    const all = {
      nodes: [node('a'), node('b'), node('c')],
      edges: [edge('ab', 'a', 'b'), edge('bc', 'b', 'c')],
    };
    expect(capElements(all, 2)).toEqual({
      drawn: { nodes: [node('a'), node('b')], edges: [edge('ab', 'a', 'b')] },
      hidden: 1,
    });
  });
});

describe('mergeElements', () => {
  it('appends what is new and keeps what is already drawn', () => {
    const base = { nodes: [node('a')], edges: [] };
    const more = { nodes: [node('a'), node('b')], edges: [edge('ab', 'a', 'b')] };
    expect(mergeElements(base, more)).toEqual({ nodes: [node('a'), node('b')], edges: [edge('ab', 'a', 'b')] });
  });
});

describe('neighboursQuery', () => {
  it('quotes the element id as a Cypher string', () => {
    expect(cypherString("it's \\")).toBe("'it\\'s \\\\'");
    expect(neighboursQuery('4:abc:12', 100)).toBe(
      "MATCH (n)-[r]-(m) WHERE elementId(n) = '4:abc:12'\nRETURN n, r, m LIMIT 100",
    );
  });
});
