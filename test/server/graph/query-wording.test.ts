/**
 * The words of `POST /api/graph/query`'s refusals and errors (CONTRACT §14.1, issue 22 item 5): the graph explorer
 * shows them as they come, so they must name what the user wrote — never the database's own wording for a
 * read-access session ("read access mode") nor a `LIMIT` the user did not type, quoted as if they had.
 */
import { describe, expect, it } from 'vitest';
import { GraphService } from '../../../src/server/graph/service.js';
import type { GraphQueryFailure } from '../../../src/shared/api/graph.js';
import { InvalidInputError } from '../../../src/shared/domain-errors.js';
import { useNeo4j } from '../../support/neo4j.js';

const db = useNeo4j();
const APPENDED = '(at the "LIMIT 100" the server appended because the query has no LIMIT of its own)';

async function refusal(text: string): Promise<string> {
  try {
    await new GraphService(db.graph).query(text, 100);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return (err as Error).message;
  }
  throw new Error(`not refused: ${text}`);
}

async function failure(text: string): Promise<string> {
  const answer = await new GraphService(db.graph).query(text, 100);
  expect(typeof answer).toBe('object');
  return (answer as GraphQueryFailure).error;
}

describe('writes are refused in the words of the clause the user wrote', () => {
  it.each([
    ['CREATE (n:Paper) RETURN n', 'the graph is read-only: CREATE is not allowed'],
    ['MERGE (n:Paper {title: "x"})', 'the graph is read-only: MERGE is not allowed'],
    ['MATCH (n) SET n.x = 1', 'the graph is read-only: SET is not allowed'],
    ['MATCH (n) SET n:Foo', 'the graph is read-only: SET is not allowed'],
    ['MATCH (n) DELETE n', 'the graph is read-only: DELETE is not allowed'],
    ['MATCH (n) DETACH DELETE n', 'the graph is read-only: DETACH DELETE is not allowed'],
    ['FOREACH (x IN [1] | CREATE ())', 'the graph is read-only: FOREACH is not allowed'],
    ['CALL { CREATE () } IN TRANSACTIONS', 'the graph is read-only: CALL { … } IN TRANSACTIONS is not allowed'],
    ['CREATE INDEX i FOR (n:A) ON (n.x)', 'administration commands are not allowed in graph queries'],
    ['CALL db.createLabel("X")', 'procedure db.createLabel is not allowed in graph queries'],
  ])('%s → 400 %s', async (text, words) => {
    const message = await refusal(text);
    expect(message).toBe(words);
    expect(message).not.toMatch(/access mode|Neo\./);
  });
});

describe('errors quote only what the user typed', () => {
  it.each([
    [
      'MATCH (n RETURN n',
      "Invalid input 'RETURN': expected a graph pattern, a parameter, ')', ':', 'IS', 'WHERE' or '{' " +
        '(line 1, column 10 (offset: 9))\n"MATCH (n RETURN n"\n          ^',
    ],
    [
      'MATCH (n) RETURN m',
      'Variable `m` not defined (line 1, column 18 (offset: 17))\n"MATCH (n) RETURN m"\n                  ^',
    ],
  ])('%s', async (text, error) => {
    expect(await failure(text)).toBe(error);
  });

  it('an error found at the appended LIMIT names it as appended, never as typed', async () => {
    for (const text of ['RETURN 1 +', 'MATCH (n) RETURN n ORDER BY', 'MATCH (n) WITH n RETURN']) {
      const error = await failure(text);
      expect(error.endsWith(APPENDED)).toBe(true);
      expect(error.replace(APPENDED, '')).not.toContain('LIMIT 100');
      expect(error).not.toContain(`${text} LIMIT`);
    }
  });

  it('a LIMIT the user typed is quoted as typed', async () => {
    expect(await failure('MATCH (n) RETURN m LIMIT 5')).toBe(
      'Variable `m` not defined (line 1, column 18 (offset: 17))\n"MATCH (n) RETURN m LIMIT 5"\n                  ^',
    );
  });
});
