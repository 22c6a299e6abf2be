/**
 * `pks mcp [-s <server>]` (CONTRACT §16.8, §20): the MCP tools on stdio (`mcp-serve.ts`). Ends with exit 0 when
 * standard input closes.
 */
import nodeModule from 'node:module';
import { addServerOption } from './auth/host-option.js';
import { defineAction, type RegisterCommand } from './host.js';

const MCP_SUMMARY = 'serve the papers, wiki and graph to an AI agent (Model Context Protocol on stdio)';

export const registerMcp: RegisterCommand = (program, host) => {
  addServerOption(program.command('mcp').description(MCP_SUMMARY)).action(
    defineAction(
      host,
      (_args, options) => ({ serverUrl: options['serverUrl'] as string | undefined }),
      async (ctx, { serverUrl }) => {
        // A host starts this server often and waits for its `initialize` answer: V8's code cache (Node's own, in
        // the temp directory; the typings in use predate it) spares compiling the SDK anew each time.
        const cache = nodeModule as { enableCompileCache?: () => unknown; flushCompileCache?: () => void };
        cache.enableCompileCache?.();
        const { serveMcp } = await import('./mcp-serve.js');
        // Written now: the run ends with `process.exit`, which would leave it unwritten.
        cache.flushCompileCache?.();
        return serveMcp(ctx, serverUrl);
      },
    ),
  );
};
