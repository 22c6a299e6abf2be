import { describe, expect, it } from 'vitest';
import { parsePreprintId as sharedParse } from '../../src/shared/ids.js';
import { paperPageIdFor, parsePreprintId, preprintIdFromPageId } from '../../src/wiki/index.js';

describe('wiki preprint ids', () => {
  it('use the one grammar of src/shared/ids.ts', () => {
    expect(parsePreprintId).toBe(sharedParse);
  });

  it.each([
    ['paper-preprint-quant-ph-9605043v3', 'quant-ph/9605043'],
    ['paper-preprint-cond-mat.stat-mech-0001001v2', 'cond-mat.stat-mech/0001001'],
    ['paper-preprint-2501.00010v1', '2501.00010'],
    ['paper-preprint-2501.00010', '2501.00010'],
    ['paper-preprint-9605043v3', 'quant-ph/9605043'],
    ['paper-preprint-2513.00010v1', null],
    ['paper-preprint-', null],
    ['concept-shor', null],
  ])('%s → %s', (pageId, expected) => {
    expect(preprintIdFromPageId(pageId)).toBe(expected);
  });

  it('page ids of preprints round-trip', () => {
    for (const id of ['quant-ph/9508027v1', '2501.00010v1']) {
      expect(preprintIdFromPageId(paperPageIdFor(id))).toBe(sharedParse(id)!.versionless);
    }
  });
});
