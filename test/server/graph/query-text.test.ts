/**
 * The textual rules of `POST /api/graph/query` (CONTRACT §14): LOAD CSV and apoc.load/import/export refused outside
 * string literals and comments; the LIMIT rule; the limit default and clamp.
 */
import { describe, expect, it } from 'vitest';
import { effectiveLimit, lexQuery, prepareQuery } from '../../../src/server/graph/query-text.js';
import { InvalidInputError } from '../../../src/shared/domain-errors.js';

const LOAD_CSV = 'LOAD CSV is not allowed in graph queries';

function refusal(query: string): string | null {
  try {
    prepareQuery(query, undefined);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return (err as Error).message;
  }
}

describe('refused query texts', () => {
  it.each([
    ['upper case', "LOAD CSV FROM 'file:///x.csv' AS row RETURN row", LOAD_CSV],
    ['lower case', "load csv from 'file:///x.csv' as row return row", LOAD_CSV],
    ['mixed case, tab', "Load\tCsv WITH HEADERS FROM 'https://e/x' AS r RETURN r", LOAD_CSV],
    ['split across lines', "LOAD\n  CSV FROM 'file:///x' AS r RETURN r", LOAD_CSV],
    ['a block comment between the words', "LOAD/* hide */CSV FROM 'file:///x' AS r RETURN r", LOAD_CSV],
    ['a line comment between the words', "LOAD // hide\nCSV FROM 'file:///x' AS r RETURN r", LOAD_CSV],
    ['inside CALL { }', "CALL { LOAD CSV FROM 'file:///x' AS r RETURN r } RETURN 1", LOAD_CSV],
    ['after a string with an escaped quote', "RETURN 'it\\'s' AS a UNION LOAD CSV FROM 'f' AS r RETURN r", LOAD_CSV],
    ['after a string ending in an escaped backslash', "RETURN 'a\\\\' AS a LOAD CSV FROM 'f' AS r RETURN r", LOAD_CSV],
    [
      'apoc.load',
      "CALL apoc.load.json('https://e/x') YIELD value RETURN value",
      'apoc.load.* is not allowed in graph queries',
    ],
    ['apoc.import', 'CALL apoc.import.csv([], [], {})', 'apoc.import.* is not allowed in graph queries'],
    [
      'apoc.export, lower/upper mix',
      "CALL APOC.Export.json.all('x', {})",
      'apoc.export.* is not allowed in graph queries',
    ],
    ['apoc with spaces around dots', 'CALL apoc . load . xml("u")', 'apoc.load.* is not allowed in graph queries'],
    [
      'apoc in one quoted name',
      "CALL `apoc.load.json`('u') YIELD value RETURN value",
      'apoc.load.* is not allowed in graph queries',
    ],
    [
      'apoc in quoted parts',
      "CALL `apoc`.`load`.json('u') YIELD value RETURN value",
      'apoc.load.* is not allowed in graph queries',
    ],
    ['empty', '', 'query required'],
    ...[0x00, 0x08, 0x0b, 0x0c, 0x0e, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f, 0x85, 0x2028, 0x2029].map(
      (code): [string, string, string] => [
        `U+${code.toString(16).toUpperCase().padStart(4, '0')} between LOAD and CSV`,
        `LOAD${String.fromCharCode(code)}CSV FROM 'http://127.0.0.1/x' AS r RETURN r`,
        'control characters are not allowed in graph queries',
      ],
    ),
    ['U+001C inside a string literal', "RETURN 'a\u001cb' AS s", 'control characters are not allowed in graph queries'],
    ...[
      'SHOW',
      'TERMINATE',
      'CREATE',
      'DROP',
      'ALTER',
      'GRANT',
      'DENY',
      'REVOKE',
      'START',
      'STOP',
      'ENABLE',
      'RENAME',
    ].map((word): [string, string, string] => [
      `administration command ${word}, after comments, lower case`,
      `// first\n/* second */ ${word.toLowerCase()} something`,
      'administration commands are not allowed in graph queries',
    ]),
    ['SHOW TRANSACTIONS', 'SHOW TRANSACTIONS', 'administration commands are not allowed in graph queries'],
    ...['CREATE DATABASE evil', 'CREATE OR REPLACE ROLE evil', 'CREATE INDEX evil FOR (n:E) ON (n.x)'].map(
      (query): [string, string, string] => [query, query, 'administration commands are not allowed in graph queries'],
    ),
    [
      'TERMINATE TRANSACTIONS',
      "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
      'administration commands are not allowed in graph queries',
    ],
    ['only whitespace', ' \n\t ', 'query required'],
  ])('%s', (_label, query, detail) => {
    expect(refusal(query)).toBe(detail);
  });
});

describe('accepted query texts', () => {
  it.each([
    ['LOAD CSV in a string literal', "RETURN 'LOAD CSV FROM x' AS text"],
    ['LOAD CSV in a double-quoted literal', 'RETURN "load csv" AS text'],
    ['LOAD CSV in a line comment', "MATCH (n) // LOAD CSV FROM 'x'\nRETURN n"],
    ['LOAD CSV in a block comment', 'MATCH (n) /* LOAD CSV */ RETURN n'],
    ['LOAD CSV as a quoted identifier', 'RETURN 1 AS `LOAD CSV`'],
    ['apoc.load in a literal', "RETURN 'apoc.load.json' AS name"],
    ['other apoc families', 'RETURN apoc.text.join(["a"], ",") AS s'],
    ['a word merely containing LOAD', 'MATCH (n:Download) RETURN n'],
    // The data clause is left to the plan, which refuses it as a write (service.test.ts).
    ['CREATE of a pattern', 'create (n:Evil) RETURN n'],
    ['CREATE of a named path', '/* c */ CREATE p = (a)-[:R]->(b) RETURN p'],
  ])('%s', (_label, query) => {
    expect(() => prepareQuery(query, undefined)).not.toThrow();
  });
});

describe('the LIMIT rule', () => {
  it.each([
    ['appended', 'MATCH (n) RETURN n', 'MATCH (n) RETURN n LIMIT 50'],
    ['trailing whitespace and semicolons trimmed', 'MATCH (n) RETURN n ;\n ; \n', 'MATCH (n) RETURN n LIMIT 50'],
    ['own LIMIT kept as is', 'MATCH (n) RETURN n LIMIT 5;', 'MATCH (n) RETURN n LIMIT 5;'],
    ['own limit in lower case', 'MATCH (n) RETURN n limit 5', 'MATCH (n) RETURN n limit 5'],
    [
      'LIMIT inside a subquery counts',
      'CALL { MATCH (n) RETURN n LIMIT 3 } RETURN n',
      'CALL { MATCH (n) RETURN n LIMIT 3 } RETURN n',
    ],
    ['LIMIT in a literal does not count', "RETURN 'LIMIT 3' AS s", "RETURN 'LIMIT 3' AS s LIMIT 50"],
    ['LIMIT in a comment does not count', 'RETURN 1 /* LIMIT 3 */', 'RETURN 1 /* LIMIT 3 */ LIMIT 50'],
    ['a property named limit does not count', 'MATCH (n) RETURN n.limit', 'MATCH (n) RETURN n.limit LIMIT 50'],
    ['a parameter named limit does not count', 'RETURN $limit AS l', 'RETURN $limit AS l LIMIT 50'],
    [
      'last line a // comment → new line',
      'MATCH (n) RETURN n // all nodes',
      'MATCH (n) RETURN n // all nodes\nLIMIT 50',
    ],
    ['a // comment on an earlier line', 'MATCH (n) // nodes\nRETURN n', 'MATCH (n) // nodes\nRETURN n LIMIT 50'],
    ['// inside a string is no comment', "RETURN 'http://x' AS u", "RETURN 'http://x' AS u LIMIT 50"],
  ])('%s', (_label, query, run) => {
    expect(prepareQuery(query, undefined).run).toBe(run);
  });

  it.each([
    [undefined, 50],
    [0, 50],
    [-3, 50],
    [1, 1],
    [9_999, 9_999],
    [10_000, 10_000],
    [10_001, 10_000],
    [1e12, 10_000],
  ])('limit %s → %i', (limit, expected) => {
    expect(effectiveLimit(limit)).toBe(expected);
    expect(prepareQuery('RETURN 1', limit)).toEqual({
      run: `RETURN 1 LIMIT ${expected}`,
      sent: 'RETURN 1',
      appended: `LIMIT ${expected}`,
    });
  });
});

describe('linear time (§14.1)', () => {
  // Each of these made the former patterns backtrack (the trailing-`;` trim was quadratic). One call well under
  // the contract's 100 ms of CPU on an idle machine; the bound here is generous for a loaded one.
  const MIB = 1024 * 1024;
  it.each([
    ['semicolons and spaces, then a word', () => 'RETURN 1' + '; '.repeat(MIB / 2 - 8) + 'x'],
    ['semicolons and spaces at the end', () => 'RETURN 1' + ' ;'.repeat(MIB / 2 - 8)],
    ['dots and spaces before LIMIT', () => 'RETURN 1 ' + '. '.repeat(MIB / 2 - 16) + 'LIMIT'],
    ['LIMIT words with spaces', () => 'RETURN 1 ' + '$LIMIT   '.repeat(MIB / 9 - 2)],
    ['apoc and spaces', () => 'RETURN ' + 'apoc      '.repeat(MIB / 10 - 1)],
    ['an open string literal', () => "RETURN '" + '\\x'.repeat(MIB / 2 - 8)],
  ])('a 1 MiB query of %s', (_label, make) => {
    const query = make();
    expect(query.length).toBeGreaterThan(MIB - 32);
    const start = process.cpuUsage();
    try {
      prepareQuery(query, undefined);
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidInputError);
    }
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(500);
  });
});

describe('lexQuery', () => {
  it('separates code, literals, quoted identifiers and comments', () => {
    const lexed = lexQuery("MATCH (`a``b`) WHERE x = 'q\\'/*' /* c */ RETURN \"d\" // e");
    expect(lexed.code).toBe("MATCH (_) WHERE x = ''   RETURN ''  ");
    expect(lexed.names).toBe("MATCH (a`b) WHERE x = ''   RETURN ''  ");
    expect(lexed.endsInLineComment).toBe(true);
  });

  it('an unterminated literal or comment swallows the rest (the database rejects the syntax)', () => {
    expect(lexQuery("RETURN 'open LOAD CSV").code).toBe("RETURN ''");
    expect(lexQuery('RETURN 1 /* open LOAD CSV').code).toBe('RETURN 1  ');
  });
});
