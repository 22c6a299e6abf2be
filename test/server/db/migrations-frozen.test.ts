import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, type Migration } from '../../../src/server/db/migrations.js';
import { POSTGRES_MIGRATIONS } from '../../../src/server/db/postgres-migrations.js';

// A released migration has run on deployed databases: the SQL each engine executes must stay byte for byte what it
// was, even though both engines build their common tables from one text (shared-ddl.ts). Append a row when a new
// migration is released; a changed hash here means a released migration was edited.
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const RELEASED: readonly { engine: string; list: readonly Migration[]; sha256: readonly string[] }[] = [
  {
    engine: 'SQLite',
    list: MIGRATIONS,
    sha256: [
      'df2de7d196984bf4d41a76bc94738a10701d0c235c4cf3b1aa7e7fd5f5ef08cf',
      '500e0bc236fbdbe412bb81da25547e5bbed0dbdc621fb61299c413255b67cbb3',
      '8ed9458db0ce125bec64976d926d91f4ca450eb8b7a1c6e8732d8d300922ab2b',
      EMPTY,
      EMPTY,
      EMPTY,
      EMPTY,
    ],
  },
  {
    engine: 'PostgreSQL',
    list: POSTGRES_MIGRATIONS,
    sha256: [
      'bf97c2d512a6968f352d20212ed7959341f3e053105e0d988b73f60bcc24fc95',
      'dbcae53a379632647ef15816999565fab81f4d6103e55d7835d5349074bbb8e6',
      '18212de5dc7fbfbb81a3d06810fd2fea94c9825f0e2f8a1d83715092988f4c59',
      'b68e9f19f04ad73cacc1ac8820aca232030ca110b4c861c8ac6d5f1dd8a0d4ca',
      '9fd83f806061632c2fa568f9c0f6b57316f5c5a0f8e63ccb4d7b783210d65134',
      '84b6d4092308efb431e6f6bca65372a21618a4ad16b6494eadc12b0526c25973',
      '327440ffe310ab5fed864a734acffd809c628d84954ce08fc917a55d7b86ec76',
    ],
  },
];

describe('released migrations', () => {
  it.each(RELEASED)('$engine runs the SQL of versions 1.. exactly as released', ({ list, sha256 }) => {
    const released = list.slice(0, sha256.length);
    expect(released.map((m) => m.version)).toEqual(sha256.map((_, i) => i + 1));
    expect(released.map((m) => createHash('sha256').update(m.sql).digest('hex'))).toEqual(sha256);
  });

  it('numbers both engines alike', () => {
    expect(POSTGRES_MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });
});
