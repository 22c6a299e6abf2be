import { CliExit, EXIT } from '../../errors.js';
import { defineContribPdf } from '../contrib/pdf.js';
import type { RegisterCommand } from '../host.js';

/** `pks upload …`: `upload pdf` is a deprecated alias of `contrib pdf`; `upload markdown|parser` were removed. */
export const registerUpload: RegisterCommand = (program, host) => {
  const upload = program.command('upload').description("deprecated: use 'pks contrib'");
  defineContribPdf(upload.command('pdf'), host, (ctx) =>
    ctx.io.stderr("warning: 'pks upload pdf' is deprecated; use 'pks contrib pdf'\n"),
  ).description("deprecated alias of 'pks contrib pdf'");
  for (const removed of ['markdown', 'parser']) {
    upload
      .command(removed)
      .description(`removed: use 'pks contrib parser'`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        throw new CliExit(EXIT.usage, `'pks upload ${removed}' was removed; use 'pks contrib parser'`);
      });
  }
};
