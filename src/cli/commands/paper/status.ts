import { EXIT } from '../../errors.js';
import { jsonObject } from '../../http/json-body.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { parseChoice, requestTimeoutMs } from '../options.js';
import { ASSET_KINDS, DefaultsNotes, encodePaperId, renderHttpError } from './access.js';

/** `pks paper status <id_or_doi> [--kind markdown|pdf]`: the job snapshot, without side effects. */
export const registerPaperStatus: RegisterCommand = (parent, host) => {
  parent
    .command('status')
    .description('print the job snapshot of a paper (never starts a job)')
    .argument('<id_or_doi>', 'arXiv id, bare old-style number, or DOI')
    .option('--kind <kind>', 'markdown or pdf', 'markdown')
    .option('--quiet-notes', "no 'Note (server applied defaults)' lines")
    .option('--request-timeout <seconds>', 'idle timeout per request', '120')
    .action(
      defineAction(
        host,
        ([id], o) => ({
          id: id!,
          kind: parseChoice('--kind', o['kind'] as string, ASSET_KINDS),
          quietNotes: o['quietNotes'] === true,
          timeoutMs: requestTimeoutMs(o['requestTimeout']),
        }),
        async (ctx, input) => {
          const api = ctx.api({ timeoutMs: input.timeoutMs });
          const res = await api.request('GET', `/api/papers/${encodePaperId(input.id)}/${input.kind}/status`, {
            kind: 'read',
          });
          new DefaultsNotes(ctx.io.stderr, input.quietNotes, input.id.trim()).observe(res);
          const text = await res.text();
          if (res.status >= 200 && res.status < 300) {
            ctx.io.stdout(`${JSON.stringify(jsonObject(res, text), null, 2)}\n`);
            return EXIT.ok;
          }
          ctx.io.stderr(renderHttpError(`${input.kind} status failed`, res.status, res.statusText, text));
          return EXIT.failure;
        },
      ),
    );
};
