import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import { CliExit, EXIT } from '../../errors.js';
import { sha256File } from '../../hash.js';
import { jsonObject } from '../../http/json-body.js';
import { fileMultipart } from '../../http/multipart.js';
import { ByteMeter, stderrProgress } from '../../progress/line.js';
import { defineAction, type CommandHost, type RegisterCommand } from '../host.js';
import { requestTimeoutMs } from '../options.js';
import { renderBody, encodePaperId } from '../paper/access.js';

export interface ContribPdfInput {
  readonly id: string;
  readonly pdf: string;
  readonly overwrite: boolean;
  readonly timeoutMs: number;
  readonly quietProgress: boolean;
}

/** The arguments and options of `contrib pdf` (also used by the deprecated `upload pdf`). */
export function defineContribPdf(command: Command, host: CommandHost, before?: (ctx: CliContext) => void): Command {
  return command
    .description('upload the PDF of a paper (sha256 computed and checked by the server)')
    .argument('<id>', 'preprint id with version, e.g. 2501.00010v1')
    .requiredOption('--pdf <path>', 'the PDF file')
    .option('--overwrite', 'replace a stored PDF with different content (the old version is kept)')
    .option('--request-timeout <seconds>', 'idle timeout per request', '120')
    .option('--quiet-progress', 'no progress on stderr')
    .action(
      defineAction(
        host,
        ([id], o): ContribPdfInput => ({
          id: id!,
          pdf: o['pdf'] as string,
          overwrite: o['overwrite'] === true,
          timeoutMs: requestTimeoutMs(o['requestTimeout']),
          quietProgress: o['quietProgress'] === true,
        }),
        async (ctx, input) => {
          before?.(ctx);
          return contribPdf(ctx, input);
        },
      ),
    );
}

export const registerContribPdf: RegisterCommand = (parent, host) => {
  defineContribPdf(parent.command('pdf'), host);
};

export async function contribPdf(ctx: CliContext, input: ContribPdfInput): Promise<number> {
  const info = await stat(input.pdf).catch(() => null);
  if (!info?.isFile()) throw new CliExit(EXIT.failure, `PDF not found: ${input.pdf}`);
  const progress = stderrProgress(ctx.io, input.quietProgress);
  const api = ctx.api({ timeoutMs: input.timeoutMs });
  api.prepareWrite();
  progress.live(`hashing ${input.pdf}…`);
  const sha256 = await sha256File(input.pdf);
  const form = fileMultipart('pdf', input.pdf, info.size, path.basename(input.pdf), 'application/pdf');
  const meter = new ByteMeter(progress, 'uploading', form.body.length);
  const res = await api.request('POST', `/api/papers/${encodePaperId(input.id)}/upload-pdf`, {
    kind: 'write',
    query: { expected_sha256: sha256, overwrite: input.overwrite ? 'true' : undefined },
    body: form.body,
    headers: { 'content-type': form.contentType },
    onUploadProgress: (sent) => meter.update(sent),
  });
  const text = await res.text();
  progress.end();
  if (res.status < 200 || res.status >= 300) {
    ctx.io.stderr(`Upload failed: HTTP ${res.status} ${res.statusText}\n${renderBody(text).trimEnd()}\n`);
    return EXIT.failure;
  }
  ctx.io.stdout(`${JSON.stringify(jsonObject(res, text), null, 2)}\n`);
  return EXIT.ok;
}
