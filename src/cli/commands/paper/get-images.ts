import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parsePreprintId } from '../../../shared/ids.js';
import type { CliContext } from '../../context.js';
import { EXIT, HttpStatusError, UsageError } from '../../errors.js';
import { saveBody } from '../../http/save.js';
import type { TransportResponse } from '../../http/transport.js';
import { ByteMeter, stderrProgress } from '../../progress/line.js';
import { outputOption } from '../common-options.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { DefaultsNotes } from './access.js';
import { addRegistryOptions, paperPath, registryOptions, requireId } from './registry.js';

interface Download {
  readonly id: string;
  /** Server path of the bytes. */
  readonly path: string;
  /** `-o`: a file, `-` for stdout, or `undefined` for the default name. */
  readonly output: string | undefined;
  /** The default file name, once the answer (and the id it resolved to) is known. */
  readonly defaultName: (res: TransportResponse) => string;
  readonly label: string;
  readonly timeoutMs: number;
}

/**
 * `pks paper get image <id> <name> [-o FILE]` and `pks paper get images <id> [-o FILE.zip]` (CONTRACT §16.8): the
 * bytes streamed to a file (written beside it, then renamed), then `Wrote N bytes to FILE` on stderr, as
 * `paper get -o` does.
 */
export const registerPaperGetImages: RegisterCommand = (get, host) => {
  addRegistryOptions(
    get
      .command('image')
      .description('download one stored image of a paper (names: see pks paper figures)')
      .argument('<id>', 'arXiv id (with or without version), bare old-style number, or DOI')
      .argument('<name>', 'the image name, as pks paper figures lists it')
      .addOption(
        outputOption('write to FILE, or into FILE when it is a directory (default: the image name, here; - = stdout)'),
      ),
    false,
  ).action(
    defineAction(
      host,
      ([id, name], o): Download => {
        const image = imageName(name ?? '');
        return {
          id: requireId(id),
          path: `${paperPath(id!)}/images/${image.split('/').map(encodeURIComponent).join('/')}`,
          output: o['output'] as string | undefined,
          defaultName: () => path.posix.basename(image),
          label: 'downloading image',
          timeoutMs: registryOptions(o).timeoutMs,
        };
      },
      download,
    ),
  );
  addRegistryOptions(
    get
      .command('images')
      .description('download all stored images of a paper as one zip')
      .argument('<id>', 'arXiv id (with or without version), bare old-style number, or DOI')
      .addOption(
        outputOption(
          'write to FILE, or into FILE when it is a directory (default: <stem>-images.zip, here; - = stdout)',
        ),
      ),
    false,
  ).action(
    defineAction(
      host,
      ([id], o): Download => ({
        id: requireId(id),
        path: `${paperPath(id!)}/images/zip`,
        output: o['output'] as string | undefined,
        defaultName: (res) =>
          attachmentName(res.header('content-disposition')) ??
          `${stemOf(res.header('x-svc-resolved-id') ?? id!.trim())}-images.zip`,
        label: 'downloading images',
        timeoutMs: registryOptions(o).timeoutMs,
      }),
      download,
    ),
  );
};

async function download(ctx: CliContext, input: Download): Promise<number> {
  const res = await ctx.api({ timeoutMs: input.timeoutMs }).request('GET', input.path, { kind: 'read' });
  new DefaultsNotes(ctx.io.stderr, false, input.id).observe(res);
  if (res.status !== 200) {
    throw new HttpStatusError(res.status, res.statusText, await res.text(), res.header('content-type'));
  }
  const file = await target(input.output, () => input.defaultName(res));
  const progress = stderrProgress(ctx.io, false);
  const total = Number(res.header('content-length') ?? NaN);
  const meter = new ByteMeter(progress, input.label, Number.isFinite(total) ? total : null);
  const bytes = await saveBody(res, file === '-' ? { stream: ctx.io.stdoutStream } : { file }, (n) => meter.update(n));
  progress.end();
  if (file !== '-') ctx.io.stderr(`Wrote ${bytes} bytes to ${file}\n`);
  return EXIT.ok;
}

/** `-o` as given, or the default name — inside `-o` when that names a directory. */
async function target(output: string | undefined, defaultName: () => string): Promise<string> {
  if (output === undefined) return defaultName();
  if (output === '-') return output;
  const info = await stat(output).catch(() => null);
  return info?.isDirectory() ? path.join(output, defaultName()) : output;
}

/** A stored image's name: segments separated by `/`, none empty, `.` or `..` (usage error before any I/O). */
function imageName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new UsageError(`invalid image name '${raw}': segments separated by '/', none empty, '.' or '..'`);
  }
  return name;
}

/**
 * The file name the server gives the zip (`attachment; filename="<stem>-images.zip"`: the stem of the version it
 * resolved, also with paper access off where no `X-Svc-Resolved-Id` is sent); `null` when absent or not a plain
 * file name.
 */
function attachmentName(header: string | undefined): string | null {
  const name = /filename="([^"]+)"/.exec(header ?? '')?.[1];
  return name !== undefined && /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..' ? name : null;
}

/** The file stem of a paper id (`quant-ph/9508027v2` → `quant-ph_9508027v2`); other text made file-safe. */
function stemOf(id: string): string {
  return parsePreprintId(id)?.stem ?? id.replace(/[^A-Za-z0-9._-]+/g, '_');
}
