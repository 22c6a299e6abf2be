/**
 * The figures algorithm of CONTRACT §18.2 as a pure function of markdown and stored images: grouping of image
 * lines, captions below (12 lines) then above (4 lines), the 200-byte stop, fig_no, context and unmatched images.
 */
import { describe, expect, it } from 'vitest';
import { extractFigures, imageLineNames, type StoredImage } from '../../../src/server/papers/figures.js';
import { sixtyFigurePaper } from './figures-corpus.js';

const url = (name: string) => `/u/${name}`;
const stored = (...names: string[]): StoredImage[] => names.map((name, i) => ({ name, size: 100 + i }));
const img = (name: string, alt = '') => `![${alt}](images/${name})`;
/** The figures as `[fig_no, caption, context, image names]`. */
const shape = (markdown: string, images: StoredImage[]) =>
  extractFigures(markdown, images, url).figures.map((f) => [
    f.fig_no,
    f.caption,
    f.context,
    f.images.map((i) => i.name),
  ]);

describe('imageLineNames', () => {
  it.each([
    ['![](images/a.png)', ['a.png']],
    ['  ![alt text](images/sub/b.jpg)  ', ['sub/b.jpg']],
    ['![](images/a.png) ![x](images/b.png)', ['a.png', 'b.png']],
    ['![](<images/my fig.png>)', ['my fig.png']],
    ['![](images/my%20fig.png)', ['my fig.png']],
    ['![](images/a.png "a title")', ['a.png']],
    ['![](images/bad%zz.png)', ['bad%zz.png']],
  ])('%j → %j', (line, names) => {
    expect(imageLineNames(line)).toEqual(names);
  });

  it.each([
    'text ![](images/a.png)',
    '![](images/a.png) and text',
    '![](https://example.org/a.png)',
    '![](other/a.png)',
    '![](images/)',
    '[link](images/a.png)',
    '',
    'Figure 1: a caption',
  ])('%j is not an image line', (line) => {
    expect(imageLineNames(line)).toBeNull();
  });
});

describe('extractFigures', () => {
  it('a caption below, with the context line above and blank lines between', () => {
    const md = ['# Results', '', 'We show the setup.', '', img('a.png'), '', 'Figure 1: The setup.', ''].join('\n');
    expect(shape(md, stored('a.png'))).toEqual([[1, 'Figure 1: The setup.', 'We show the setup.', ['a.png']]]);
  });

  it('image lines with blank lines between form one figure; a text line starts another', () => {
    const md = [
      'Intro.',
      img('a.png'),
      '',
      img('b.png'),
      '',
      '',
      img('c.png') + ' ' + img('d.png'),
      'Fig. 2. Four panels.',
      'Between the figures.',
      img('e.png'),
      '**Figure 3** The last one.',
    ].join('\n');
    expect(shape(md, stored('a.png', 'b.png', 'c.png', 'd.png', 'e.png'))).toEqual([
      [2, 'Fig. 2. Four panels.', 'Intro.', ['a.png', 'b.png', 'c.png', 'd.png']],
      [3, '**Figure 3** The last one.', 'Between the figures.', ['e.png']],
    ]);
  });

  it('a caption above when none is below (within 4 lines)', () => {
    const md = ['Context here.', 'Figure 7: Caption on top.', '', img('a.png'), '', 'Plain text after.'].join('\n');
    expect(shape(md, stored('a.png'))).toEqual([[7, 'Figure 7: Caption on top.', 'Context here.', ['a.png']]]);
  });

  it('below wins over above; a caption 5 lines above is out of reach', () => {
    const both = ['Figure 1: above', img('a.png'), 'FIG 9 below'].join('\n');
    expect(shape(both, stored('a.png'))).toEqual([[9, 'FIG 9 below', '', ['a.png']]]);
    const far = ['Figure 1: too far', '', '', '', '', img('a.png')].join('\n');
    expect(shape(far, stored('a.png'))).toEqual([[0, '', '', ['a.png']]]);
  });

  it('a caption 12 lines below is found, 13 lines below is not', () => {
    const at = (gap: number) => [img('a.png'), ...Array<string>(gap - 1).fill('short line'), 'Figure 4: x'].join('\n');
    expect(shape(at(12), stored('a.png'))[0]![0]).toBe(4);
    expect(shape(at(13), stored('a.png'))[0]![0]).toBe(0);
  });

  it('Chinese captions (图 1) and the other spellings', () => {
    for (const [caption, no] of [
      ['图 1 实验装置', 1],
      ['图3：结果', 3],
      ['FIG. 12. Upper case.', 12],
      ['Fig.5 no space', 5],
      ['  * * Figure 6', 0],
      ['** Figure 8: bold', 8],
    ] as const) {
      const md = [img('a.png'), caption].join('\n');
      expect([caption, shape(md, stored('a.png'))[0]![0]]).toEqual([caption, no]);
    }
  });

  it('no caption: fig_no 0 and an empty caption', () => {
    const md = ['Some context.', img('a.png'), 'Just text.'].join('\n');
    expect(shape(md, stored('a.png'))).toEqual([[0, '', 'Some context.', ['a.png']]]);
  });

  it('a line over 200 bytes stops the search below; the search above still runs', () => {
    const long = 'x'.repeat(201);
    const md = ['Figure 2: above', img('a.png'), long, 'Figure 3: after the paragraph'].join('\n');
    expect(shape(md, stored('a.png'))).toEqual([[2, 'Figure 2: above', '', ['a.png']]]);
    // 200 bytes is not over: the search goes on.
    const exactly = [img('a.png'), 'x'.repeat(200), 'Figure 3: found'].join('\n');
    expect(shape(exactly, stored('a.png'))[0]![0]).toBe(3);
    // Bytes, not characters: 70 CJK characters are 210 bytes.
    const cjk = [img('a.png'), '文'.repeat(70), '图 4'].join('\n');
    expect(shape(cjk, stored('a.png'))[0]![0]).toBe(0);
  });

  it('a long caption is still a caption (the stop applies to other lines)', () => {
    const caption = `Figure 5: ${'a long caption '.repeat(30)}`;
    const md = [img('a.png'), caption].join('\n');
    expect(shape(md, stored('a.png'))[0]![1]).toBe(caption.trim());
  });

  it('a search stops at another figure, and a caption is taken once', () => {
    const md = [img('a.png'), 'text', img('b.png'), 'Figure 2: of b'].join('\n');
    expect(shape(md, stored('a.png', 'b.png'))).toEqual([
      [0, '', '', ['a.png']],
      [2, 'Figure 2: of b', 'text', ['b.png']],
    ]);
    const shared = [img('a.png'), 'Figure 1: of a', img('b.png')].join('\n');
    expect(shape(shared, stored('a.png', 'b.png'))).toEqual([
      [1, 'Figure 1: of a', '', ['a.png']],
      [0, '', '', ['b.png']],
    ]);
  });

  it('context: the nearest line above that is not blank, an image or a caption, cut to 200 characters', () => {
    const context = `${'é'.repeat(150)}${'z'.repeat(100)}`;
    const md = [context, 'Figure 1: a', img('a.png'), '', 'Fig 2: b', '', img('b.png')].join('\n');
    const figures = extractFigures(md, stored('a.png', 'b.png'), url).figures;
    expect(figures.map((f) => f.context)).toEqual([
      `${'é'.repeat(150)}${'z'.repeat(50)}`,
      `${'é'.repeat(150)}${'z'.repeat(50)}`,
    ]);
  });

  it('images: sizes and URLs from the store; unstored references dropped; unmatched images listed sorted', () => {
    const md = [img('a.png'), img('missing.png'), 'Figure 1', '', img('gone.png'), 'Figure 2'].join('\n');
    const result = extractFigures(
      md,
      [
        { name: 'z.png', size: 3 },
        { name: 'a.png', size: 10 },
        { name: 'b.png', size: 20 },
      ],
      url,
    );
    expect(result.figures).toEqual([
      { fig_no: 1, caption: 'Figure 1', context: '', images: [{ name: 'a.png', size: 10, url: '/u/a.png' }] },
    ]);
    expect(result.unmatched_images).toEqual([
      { name: 'b.png', size: 20, url: '/u/b.png' },
      { name: 'z.png', size: 3, url: '/u/z.png' },
    ]);
  });

  it('CRLF line ends, and an empty markdown', () => {
    const md = ['Context.', img('a.png'), 'Figure 1: x'].join('\r\n');
    expect(shape(md, stored('a.png'))).toEqual([[1, 'Figure 1: x', 'Context.', ['a.png']]]);
    expect(extractFigures('', stored('a.png'), url)).toEqual({
      figures: [],
      unmatched_images: [{ name: 'a.png', size: 100, url: '/u/a.png' }],
    });
  });

  it('the 60-figure paper of the benchmark: every figure, its number and every image', () => {
    const { markdown, images } = sixtyFigurePaper();
    const result = extractFigures(markdown, images, url);
    expect(result.figures.map((f) => f.fig_no)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(result.figures.map((f) => f.images.length)).toEqual(Array.from({ length: 60 }, (_, i) => 1 + ((i + 1) % 3)));
    expect(result.unmatched_images).toEqual([]);
  });
});
