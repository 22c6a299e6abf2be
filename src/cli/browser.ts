/**
 * Opens a URL in the user's browser with the platform's opener; any failure is ignored (the URL is printed too).
 * The URL comes from the server, so it is never handed to a shell (`cmd /c start <url>` would run whatever follows
 * a `&`): the opener is started directly with the URL as one argument, and only http(s) URLs are opened.
 */
import { spawn, type SpawnOptions } from 'node:child_process';

/** Starts a program without a shell; the part of `child_process.spawn` the opener uses (tests inject their own). */
export type Spawner = (
  command: string,
  args: readonly string[],
  options: SpawnOptions & { shell: false },
) => { on(event: 'error', listener: (err: Error) => void): unknown; unref(): void };

export interface OpenerCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** The opener and its arguments for `url` on `platform`; `null` when `url` is not an http(s) URL. */
export function openerCommand(url: string, platform: NodeJS.Platform): OpenerCommand | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  // The serialised URL: spaces and quotes percent-encoded, so it stays one argument on every platform.
  const href = parsed.href;
  if (platform === 'darwin') return { command: 'open', args: [href] };
  if (platform === 'win32') return { command: 'rundll32.exe', args: ['url.dll,FileProtocolHandler', href] };
  return { command: 'xdg-open', args: [href] };
}

/** Opens `url`; `false` when it was refused (not http(s)) or the opener could not be started. */
export function openInBrowser(
  url: string,
  platform: NodeJS.Platform = process.platform,
  spawner: Spawner = spawn,
): boolean {
  const opener = openerCommand(url, platform);
  if (!opener) return false;
  try {
    const child = spawner(opener.command, opener.args, {
      stdio: 'ignore',
      detached: true,
      shell: false,
      windowsHide: true,
    });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false; // no opener: the user opens the printed URL
  }
}
