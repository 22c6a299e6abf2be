import { lintWikiDir } from '../../../wiki/index.js';
import { EXIT } from '../../errors.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { wikiRoot } from './checkout.js';

/** `pks wiki lint [-v] [--fix]`: W001–W009 over every page file; exit 1 iff there are errors. */
export const registerWikiLint: RegisterCommand = (parent, host) => {
  parent
    .command('lint')
    .description('check the pages (W001–W009); exit 1 when there are errors')
    .option('-v, --verbose', 'list every finding')
    .option('--fix', 'add a missing created_at (today) and status (draft)')
    .action(
      defineAction(
        host,
        (_args, o) => ({ verbose: o['verbose'] === true, fix: o['fix'] === true }),
        async (ctx, { verbose, fix }) => {
          const root = wikiRoot(ctx);
          const result = await lintWikiDir(root, { fix, now: ctx.now() });
          const lines = [`Wiki lint: ${root}`];
          if (verbose) {
            for (const issue of result.issues) {
              lines.push(
                `  [${issue.severity.toUpperCase()}] ${issue.code} ${issue.page_id ?? issue.file}: ${issue.message}`,
              );
              if (issue.suggestion) lines.push(`      Suggestion: ${issue.suggestion}`);
            }
          }
          lines.push(
            `Total issues: ${result.total_issues}`,
            `Errors: ${result.errors}`,
            `Warnings: ${result.warnings}`,
            `Info: ${result.info}`,
          );
          if (fix) lines.push(`Fixed: ${result.fixed.length}`);
          if (!verbose && result.total_issues > 0) lines.push("(run 'pks wiki lint -v' to list them)");
          ctx.io.stdout(lines.join('\n') + '\n');
          return result.errors > 0 ? EXIT.failure : EXIT.ok;
        },
      ),
    );
};
