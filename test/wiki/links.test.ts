import { describe, expect, it } from 'vitest';
import { extractWikilinks, maskCode, outgoingTargets, parseLinkInner } from '../../src/wiki/index.js';

const targets = (body: string): string[] => extractWikilinks(body).map((l) => l.target);

describe('wikilinks: the four forms', () => {
  it('[[page-id]]', () => {
    expect(extractWikilinks('See [[concept-qubit]].')).toEqual([
      { target: 'concept-qubit', section: null, text: null, raw: '[[concept-qubit]]', offset: 4 },
    ]);
  });

  it('[[page-id|display text]]', () => {
    const [link] = extractWikilinks('A [[concept-qubit|qubit]] here');
    expect(link).toMatchObject({ target: 'concept-qubit', section: null, text: 'qubit' });
  });

  it('[[#section]] targets the current page', () => {
    const [link] = extractWikilinks('Back to [[#definition]].');
    expect(link).toMatchObject({ target: '', section: 'definition', text: null });
    expect(outgoingTargets(extractWikilinks('Back to [[#definition]].'), 'concept-x')).toEqual([]);
  });

  it('[[page-id#section]] resolves to page-id', () => {
    const links = extractWikilinks('See [[prim-phase-estimation#circuit]].');
    expect(links[0]).toMatchObject({ target: 'prim-phase-estimation', section: 'circuit', text: null });
    expect(outgoingTargets(links, null)).toEqual(['prim-phase-estimation']);
  });

  it('[[page-id#section|text]] and trimming', () => {
    const [link] = extractWikilinks('[[  algo-shor # Reduction  |  the reduction ]]');
    expect(link).toMatchObject({ target: 'algo-shor', section: 'Reduction', text: 'the reduction' });
  });

  it('ignores empty and malformed links', () => {
    expect(targets('[[]] [[ ]] [[#]] [[|x]] [[a\nb]] [[a]b]] [a] [[unclosed')).toEqual([]);
    expect(parseLinkInner('  ')).toBeNull();
  });

  it('takes the innermost [[ when brackets nest', () => {
    expect(targets('[[[x]]]')).toEqual(['x']);
  });

  it('outgoing links: distinct, sorted, without the own id', () => {
    const links = extractWikilinks('[[b]] [[a]] [[b|again]] [[self]] [[a#s]] [[#t]]');
    expect(outgoingTargets(links, 'self')).toEqual(['a', 'b']);
  });
});

describe('wikilinks: code is ignored', () => {
  it('inline code spans', () => {
    expect(targets('Use `[[not-a-link]]` but [[real]].')).toEqual(['real']);
    expect(targets('Double ``a ` [[nope]] `` then [[yes]]')).toEqual(['yes']);
  });

  it('unmatched backticks are literal', () => {
    expect(targets('A lone ` tick and [[real]]')).toEqual(['real']);
  });

  it('fenced code blocks with ``` and ~~~', () => {
    const body = [
      '[[before]]',
      '```python',
      'x = "[[in-backtick-fence]]"',
      '```',
      '~~~',
      '[[in-tilde-fence]]',
      '~~~',
      '````md',
      '```',
      '[[in-long-fence]]',
      '````',
      '[[after]]',
    ].join('\n');
    expect(targets(body)).toEqual(['before', 'after']);
  });

  it('an unclosed fence runs to the end of the body', () => {
    expect(targets('[[a]]\n```\n[[b]]\n')).toEqual(['a']);
  });

  it('a ~~~ line does not close a ``` fence', () => {
    expect(targets('```\n~~~\n[[hidden]]\n```\n[[shown]]')).toEqual(['shown']);
  });

  it('masking keeps offsets', () => {
    const body = 'a `[[x]]` [[y]]';
    expect(maskCode(body)).toHaveLength(body.length);
    const [link] = extractWikilinks(body);
    expect(body.slice(link!.offset, link!.offset + link!.raw.length)).toBe('[[y]]');
  });
});
