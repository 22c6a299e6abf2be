/**
 * Paper-access job snapshots (CONTRACT §11.2) and the §11.1 resolution texts in the reader's words
 * (web/src/lib/job-words.ts), and the device page's countdown format (web/src/lib/format.ts).
 */
import { describe, expect, it } from 'vitest';
import type { JobSnapshot } from '../../web/src/api/types.js';
import { fmtCountdown } from '../../web/src/lib/format.js';
import { defaultWords, jobWords, type AssetKind, type JobWords } from '../../web/src/lib/job-words.js';

const snapshot = (fields: Partial<JobSnapshot>): JobSnapshot => ({
  preprint_id: '2501.00010v1',
  state: 'none',
  phase: '',
  pdf_ready: false,
  md_ready: false,
  ...fields,
});

describe('jobWords', () => {
  const cases: [name: string, s: JobSnapshot, kind: AssetKind, words: JobWords][] = [
    [
      'markdown not stored',
      snapshot({ detail: 'not cached; GET /api/papers/2501.00010v1/markdown starts a conversion' }),
      'markdown',
      {
        text:
          'No markdown of this paper is stored yet. Converting downloads the PDF from arXiv when needed and turns it ' +
          'into markdown with its figures.',
        technical: null,
      },
    ],
    [
      'PDF not stored',
      snapshot({ detail: 'not cached; GET /api/papers/2501.00010v1/pdf starts a download from arXiv' }),
      'pdf',
      {
        text: 'No PDF of this paper is stored yet. Fetching downloads it from arXiv and keeps it here.',
        technical: null,
      },
    ],
    [
      'conversion unavailable',
      snapshot({
        state: 'unavailable',
        detail: 'markdown not cached and server-side conversion is disabled: PARSER_API_TOKENS unset; cache-only mode',
      }),
      'markdown',
      {
        text:
          'This server does not convert papers itself (no parser service is set up), so it shows markdown only when ' +
          'it is already stored. A contributor can still parse the paper and upload the result.',
        technical:
          'markdown not cached and server-side conversion is disabled: PARSER_API_TOKENS unset; cache-only mode',
      },
    ],
    [
      'no such paper at arXiv',
      snapshot({ state: 'failed', phase: 'error_fetching', detail: 'arXiv has no paper 2501.99999v1 (HTTP 404)' }),
      'markdown',
      {
        text: 'The PDF could not be downloaded from arXiv. arXiv has no paper 2501.99999v1 (HTTP 404).',
        technical: null,
      },
    ],
    [
      'parser failure',
      snapshot({ state: 'failed', phase: 'error_converting', detail: 'conversion failed: parser HTTP 503' }),
      'markdown',
      { text: 'The PDF could not be converted to markdown.', technical: 'conversion failed: parser HTTP 503' },
    ],
    [
      'quota used up',
      snapshot({
        state: 'cooldown',
        phase: 'error_converting',
        detail: "server quota exhausted: all 2 parser API tokens have reached today's daily limit",
      }),
      'markdown',
      {
        text:
          'The PDF could not be converted to markdown. Server quota exhausted: all 2 parser API tokens have reached ' +
          "today's daily limit.",
        technical: null,
      },
    ],
    [
      'in progress',
      snapshot({ state: 'queued', phase: 'fetching_pdf', detail: 'conversion in progress' }),
      'markdown',
      {
        text: null,
        technical: null,
      },
    ],
    ['stored', snapshot({ state: 'cached', phase: 'ready' }), 'pdf', { text: null, technical: null }],
  ];
  it.each(cases)('%s', (_name, s, kind, words) => {
    expect(jobWords(s, kind)).toEqual(words);
  });
});

describe('defaultWords', () => {
  it.each([
    [
      'doi_resolved_via_openalex (DOI -> arXiv id quant-ph/9508027)',
      'OpenAlex lists the DOI as arXiv paper quant-ph/9508027',
    ],
    [
      'category=quant-ph (no category prefix; server default for bare old-style numbers)',
      'a number without a category is read as a quant-ph paper',
    ],
    [
      'version=v2 (no version specified; latest published version used)',
      'no version was given, so the latest one, v2, is shown',
    ],
    ['something new', 'something new'],
  ])('%s', (text, words) => {
    expect(defaultWords(text)).toBe(words);
  });
});

describe('fmtCountdown', () => {
  it.each([
    [600, '10:00'],
    [599.2, '10:00'],
    [545, '9:05'],
    [59, '0:59'],
    [0, '0:00'],
    [-3, '0:00'],
    [3723, '1:02:03'],
  ])('%s s → %s', (seconds, text) => {
    expect(fmtCountdown(seconds)).toBe(text);
  });
});
