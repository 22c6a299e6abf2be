/**
 * The browser opener (`auth login`): the server-supplied URL is never given to a shell — the opener is spawned
 * with an argument array and `shell: false` — and only http(s) URLs are opened.
 */
import { describe, expect, it } from 'vitest';
import { openInBrowser, type Spawner } from '../../../src/cli/browser.js';

interface Spawned {
  command: string;
  args: readonly string[];
  options: Parameters<Spawner>[2];
}

function recordingSpawner(): { spawner: Spawner; spawned: Spawned[]; unrefs: number } {
  const state = { spawned: [] as Spawned[], unrefs: 0 };
  const spawner: Spawner = (command, args, options) => {
    state.spawned.push({ command, args, options });
    return { on: () => undefined, unref: () => void state.unrefs++ };
  };
  return {
    spawner,
    spawned: state.spawned,
    get unrefs() {
      return state.unrefs;
    },
  };
}

const INJECTION = 'https://pks.example/device?user_code=ABCD-EFGH&x=1" & calc.exe & "';
const INJECTION_HREF = 'https://pks.example/device?user_code=ABCD-EFGH&x=1%22%20&%20calc.exe%20&%20%22';

describe('openInBrowser', () => {
  it.each([
    ['win32', 'rundll32.exe', ['url.dll,FileProtocolHandler', INJECTION_HREF]],
    ['darwin', 'open', [INJECTION_HREF]],
    ['linux', 'xdg-open', [INJECTION_HREF]],
    ['freebsd', 'xdg-open', [INJECTION_HREF]],
  ] as const)('%s: spawns %s with the URL as one argument, never through a shell', (platform, command, args) => {
    const r = recordingSpawner();
    expect(openInBrowser(INJECTION, platform, r.spawner)).toBe(true);
    expect(r.spawned).toEqual([
      { command, args, options: { stdio: 'ignore', detached: true, shell: false, windowsHide: true } },
    ]);
    expect(r.spawned[0]!.command).not.toMatch(/^(cmd|sh|bash|powershell)/i);
    expect(r.unrefs).toBe(1);
  });

  it.each([
    ['file:///etc/passwd'],
    ['javascript:alert(1)'],
    ['calc.exe'],
    ['ms-settings:'],
    ['\\\\attacker\\share\\x.exe'],
    ['-n http://pks.example/'],
    [''],
  ])('refuses %j: nothing is spawned', (url) => {
    const r = recordingSpawner();
    expect(openInBrowser(url, 'win32', r.spawner)).toBe(false);
    expect(openInBrowser(url, 'linux', r.spawner)).toBe(false);
    expect(r.spawned).toEqual([]);
  });

  it('a spawner that throws (no opener installed) is a quiet false', () => {
    const failing: Spawner = () => {
      throw new Error('spawn xdg-open ENOENT');
    };
    expect(openInBrowser('http://127.0.0.1:4200/device', 'linux', failing)).toBe(false);
  });
});
