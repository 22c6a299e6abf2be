/** CONTRACT §12.4 error classification, row for row (first matching rule wins; codes as numbers or strings). */
import { describe, expect, it } from 'vitest';
import { classifyParserError, classifyParserText } from '../../../src/parser-api/classify.js';

type Row = [rule: string, facts: Parameters<typeof classifyParserError>[0], expected: string];

const rows: Row[] = [
  ['1 HTTP 429', { httpStatus: 429, code: -60010, message: 'whatever' }, 'daily_limit'],
  ['2 -60018 (number)', { httpStatus: 200, code: -60018, message: 'daily task limit reached' }, 'daily_limit'],
  ['2 -60019 (string)', { httpStatus: 200, code: '-60019', message: 'html parse quota exhausted' }, 'daily_limit'],
  ...['-10001', '-60001', '-60007', '-60008', '-60009', '-60010', '-60020', '-60021', '-60022'].map((code): Row => [
    `3 ${code}`,
    { httpStatus: 200, code, message: 'daily quota text is ignored for codes' },
    'retryable',
  ]),
  ['3 -60009 as a number', { httpStatus: 200, code: -60009, message: 'queue full' }, 'retryable'],
  ...['A0202', 'A0211', '-500', '-10002', '-60002', '-60003', '-60004', '-60005', '-60006'].map((code): Row => [
    `4 ${code}`,
    { httpStatus: 200, code, message: 'x' },
    'fatal',
  ]),
  ...['-60011', '-60012', '-60013', '-60014', '-60015', '-60016', '-60017'].map((code): Row => [
    `4 ${code}`,
    { httpStatus: 200, code, message: 'x' },
    'fatal',
  ]),
  ['5 HTTP 401', { httpStatus: 401, code: null, message: 'unauthorized' }, 'fatal'],
  ['5 HTTP 403', { httpStatus: 403, code: null, message: 'quota' }, 'fatal'],
  ...[
    'Number of pages exceeds 600',
    'file exceeds limit (200 pages)',
    'exceeds the page limit',
    'document exceeds page limit',
    'please split the file',
    '页数超过限制',
    '页数超出限制',
    '页数已超',
    'File size exceeds the maximum',
    'file exceeds 200MB',
    'file exceeds 200 MB',
    '文件大小超出',
    '文件大小超过',
    '文件过大',
  ].map((message): Row => [`6a "${message}"`, { httpStatus: 500, code: 99, message }, 'fatal']),
  ...[
    'Quota exceeded',
    'limit 5000 per day',
    'account restricted',
    'try again tomorrow',
    'next day',
    'daily limit',
    'limit reached today',
    '额度已用完',
    '已达上限',
    '次日恢复',
    '明日再试',
    '明天再试',
  ].map((message): Row => [`6b "${message}"`, { httpStatus: 500, code: 99, message }, 'daily_limit']),
  ['6a before 6b', { httpStatus: 200, code: 1, message: 'file size exceeds today' }, 'fatal'],
  ['7 HTTP 500', { httpStatus: 500, code: 1, message: 'oops' }, 'retryable'],
  ['7 HTTP 503', { httpStatus: 503, code: null, message: 'unavailable' }, 'retryable'],
  ['7 HTTP 408', { httpStatus: 408, code: null, message: 'slow' }, 'retryable'],
  ['7 network error', { httpStatus: null, message: 'ECONNREFUSED', network: true }, 'retryable'],
  ['8 otherwise', { httpStatus: 400, code: 12345, message: 'strange' }, 'unclassified'],
  ['8 HTTP 200 with an unknown code', { httpStatus: 200, code: 'X1', message: 'odd' }, 'unclassified'],
];

describe('parser error classifier (CONTRACT §12.4)', () => {
  it.each(rows)('rule %s', (_rule, facts, expected) => {
    expect(classifyParserError(facts)).toBe(expected);
  });

  it.each([
    ['number of pages exceeds 200', 'fatal'],
    ['quota used up', 'daily_limit'],
    ['model crashed', 'unclassified'],
  ])('err_msg of a failed task: "%s" → %s', (text, expected) => {
    expect(classifyParserText(text)).toBe(expected);
  });
});
