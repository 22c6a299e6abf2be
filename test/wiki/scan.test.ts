import { execFileSync } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MAX_PAGE_FILE_BYTES,
  getPageDetail,
  isPageFileName,
  lintFiles,
  loadWiki,
  resolveInsideRoot,
  scanWiki,
} from '../../src/wiki/index.js';
import { NOW, makeWiki, page, tempDir, writeFiles } from './helpers.js';

const paths = (scan: { files: readonly { path: string }[] }): string[] => scan.files.map((f) => f.path);

describe('which files are pages', () => {
  it('takes every *.md recursively, sorted by path, except index/log/README and hidden directories', async () => {
    const dir = await makeWiki({
      'b.md': page({ id: 'b' }),
      'a.md': page({ id: 'a' }),
      'concepts/z.md': page({ id: 'z' }),
      'concepts/deep/y.md': page({ id: 'y' }),
      'index.md': page({ id: 'index' }),
      'log.md': '# log',
      'README.md': '# readme',
      'concepts/README.md': '# readme',
      'concepts/index.md': '# index',
      '.git/HEAD.md': page({ id: 'git' }),
      '.obsidian/x.md': page({ id: 'hidden' }),
      'concepts/.drafts/d.md': page({ id: 'draft' }),
      '.dotfile.md': page({ id: 'dot' }),
      'notes.txt': 'not markdown',
      'upper.MD': page({ id: 'upper' }),
      'a-b.md': page({ id: 'a-b' }),
    });
    const scan = await scanWiki(dir);
    expect(scan.exists).toBe(true);
    expect(paths(scan)).toEqual(['a-b.md', 'a.md', 'b.md', 'concepts/deep/y.md', 'concepts/z.md']);
  });

  it('isPageFileName', () => {
    expect(isPageFileName('x.md')).toBe(true);
    expect(isPageFileName('README.md')).toBe(false);
    expect(isPageFileName('.x.md')).toBe(false);
    expect(isPageFileName('x.markdown')).toBe(false);
  });

  it('a missing directory is an empty wiki', async () => {
    const dir = path.join(await tempDir(), 'does-not-exist');
    const snapshot = await loadWiki(dir);
    expect(snapshot.exists).toBe(false);
    expect(snapshot.pages).toEqual([]);
    const file = path.join(await tempDir(), 'file');
    await writeFile(file, 'x');
    expect((await scanWiki(file)).exists).toBe(false);
  });
});

describe('symlinks', () => {
  it('does not follow symlinks that leave the wiki directory', async () => {
    const outside = await makeWiki({
      'secret.md': page({ id: 'secret', title: 'SECRET' }),
      'dir/s2.md': page({ id: 's2' }),
    });
    const dir = await makeWiki({ 'a.md': page({ id: 'a' }) });
    await symlink(path.join(outside, 'secret.md'), path.join(dir, 'link.md'));
    await symlink(path.join(outside, 'dir'), path.join(dir, 'linkdir'));
    await symlink('../../../../../../../../etc/passwd', path.join(dir, 'passwd.md'));
    const scan = await scanWiki(dir);
    expect(paths(scan)).toEqual(['a.md']);
    expect(scan.ignored.map((i) => i.path).sort()).toEqual(['link.md', 'linkdir', 'passwd.md']);
    expect(JSON.stringify(scan)).not.toContain('SECRET');
  });

  it('follows symlinks inside the directory without duplicating pages or looping', async () => {
    const dir = await makeWiki({ 'concepts/a.md': page({ id: 'a' }), 'other/b.md': page({ id: 'b' }) });
    await symlink(path.join(dir, 'concepts'), path.join(dir, 'alias')); // same directory twice
    await symlink('..', path.join(dir, 'concepts', 'loop')); // cycle
    await symlink(path.join(dir, 'other', 'b.md'), path.join(dir, 'b-link.md')); // same file twice
    await symlink('missing.md', path.join(dir, 'dangling.md'));
    const scan = await scanWiki(dir);
    expect(paths(scan)).toEqual(['concepts/a.md', 'other/b.md']);
  });

  it('reaches a page only through an in-root symlink when that is its only path', async () => {
    const dir = await makeWiki({ 'store/.hidden/x.md': page({ id: 'x' }), 'real/y.md': page({ id: 'y' }) });
    await symlink(path.join(dir, 'store', '.hidden'), path.join(dir, 'via-link'));
    await symlink(path.join(dir, 'real', 'y.md'), path.join(dir, 'real', 'y-alias.md'));
    const scan = await scanWiki(dir);
    // Links into hidden directories are refused; the alias of y is not a second page.
    expect(paths(scan)).toEqual(['real/y.md']);
  });

  it('works when the wiki root itself is a symlink', async () => {
    const real = await makeWiki({ 'a.md': page({ id: 'a' }) });
    const holder = await tempDir();
    await symlink(real, path.join(holder, 'wiki'));
    expect(paths(await scanWiki(path.join(holder, 'wiki')))).toEqual(['a.md']);
  });
});

describe('hostile files are reported, never fatal', () => {
  it('skips and reports files over 5 MiB without parsing them', async () => {
    const huge = page({ id: 'huge', extra: [`blob: ${'x'.repeat(10 * 1024 * 1024)}`] });
    const dir = await makeWiki({ 'huge.md': huge, 'ok.md': page({ id: 'ok' }) });
    const snapshot = await loadWiki(dir);
    expect(snapshot.pages.map((p) => p.id)).toEqual(['ok']);
    expect(snapshot.excluded).toEqual([
      { path: 'huge.md', page_id: null, reason: expect.stringContaining(`${MAX_PAGE_FILE_BYTES}-byte limit`) },
    ]);
    const lint = lintFiles(snapshot.files, { now: NOW });
    expect(lint.issues.filter((i) => i.file === 'huge.md')).toEqual([
      expect.objectContaining({ code: 'W001', severity: 'error', message: 'Missing or unparseable frontmatter' }),
    ]);
  });

  it('reports 10 MiB of frontmatter', async () => {
    // Under the file cap with a 4.9 MiB frontmatter block: refused by the 64 KiB frontmatter limit.
    const big = `---\nid: big\ntitle: Big\ntype: concept\nblob: ${'y'.repeat(4_900_000)}\n---\nbody\n`;
    const dir = await makeWiki({ 'big.md': big, 'huge.md': `---\nblob: ${'z'.repeat(10 * 1024 * 1024)}\n---\n` });
    const scan = await scanWiki(dir);
    expect(scan.files.map((f) => [f.path, f.problem?.kind])).toEqual([
      ['big.md', 'frontmatter_too_large'],
      ['huge.md', 'too_large'],
    ]);
  });

  it('reports NUL bytes and invalid UTF-8', async () => {
    const dir = await makeWiki({
      'nul.md': Buffer.concat([Buffer.from(page({ id: 'nul' })), Buffer.from([0])]),
      'latin1.md': Buffer.concat([Buffer.from(page({ id: 'latin1' })), Buffer.from([0xe9, 0x0a])]),
    });
    const snapshot = await loadWiki(dir);
    expect(snapshot.pages).toEqual([]);
    expect(snapshot.files.map((f) => [f.path, f.problem?.kind])).toEqual([
      ['latin1.md', 'not_utf8'],
      ['nul.md', 'binary'],
    ]);
    expect(snapshot.excluded).toHaveLength(2);
  });

  it('survives an alias bomb in a page', async () => {
    const bomb = [
      '---',
      'id: bomb',
      'title: Bomb',
      'type: concept',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
      '---',
      'body',
    ].join('\n');
    const dir = await makeWiki({ 'bomb.md': bomb, 'ok.md': page({ id: 'ok' }) });
    const snapshot = await loadWiki(dir);
    expect(snapshot.pages.map((p) => p.id)).toEqual(['ok']);
    expect(snapshot.files[0]?.problem?.kind).toBe('too_many_aliases');
  });

  it('does not block on a FIFO named like a page', async () => {
    const dir = await makeWiki({ 'ok.md': page({ id: 'ok' }) });
    try {
      execFileSync('mkfifo', [path.join(dir, 'fifo.md')]);
    } catch {
      return; // no mkfifo on this system
    }
    const scan = await scanWiki(dir);
    expect(paths(scan)).toEqual(['ok.md']);
  });

  it('a page whose id tries to escape is not served and cannot be fetched', async () => {
    const dir = await makeWiki({
      'evil.md': page({ id: '"../../etc/passwd"' }),
      'abs.md': page({ id: '/etc/passwd' }),
      'ok.md': page({ id: 'ok' }),
    });
    const snapshot = await loadWiki(dir);
    expect(snapshot.pages.map((p) => p.id)).toEqual(['ok']);
    for (const id of ['../../etc/passwd', '/etc/passwd', '..', 'ok/../ok', 'ok\u0000', '%2e%2e', '']) {
      expect(getPageDetail(snapshot, id), id).toBeNull();
    }
    expect(getPageDetail(snapshot, 'ok')?.id).toBe('ok');
  });
});

describe('resolveInsideRoot', () => {
  it('refuses paths that could leave the root', () => {
    const root = '/srv/wiki';
    expect(resolveInsideRoot(root, 'concepts/a.md')).toBe('/srv/wiki/concepts/a.md');
    for (const bad of [
      '../x.md',
      'a/../../x.md',
      '/etc/passwd',
      'a/./b.md',
      'a//b.md',
      'a\u0000.md',
      'a\\..\\b',
      '',
      '..',
    ]) {
      expect(resolveInsideRoot(root, bad), JSON.stringify(bad)).toBeNull();
    }
  });
});

describe('CRLF files', () => {
  it('parses CRLF pages like LF pages', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'a.md': page({ id: 'a', body: '## Definition\n\nText [[b]].\n' }).replace(/\n/g, '\r\n') });
    const snapshot = await loadWiki(dir);
    expect(snapshot.pages[0]?.body).toBe('## Definition\n\nText [[b]].');
    expect(await readFile(path.join(dir, 'a.md'), 'utf8')).toContain('\r\n');
  });
});
