/**
 * A real pksd with paper access on against the arXiv, OpenAlex and MinerU doubles (the server side of the
 * `paper` and `ingest` tests), its system PAT set to `pat`.
 */
import { startTestServer, type TestServer } from '../../support/server.js';
import { startOnTop } from '../../support/start-on-top.js';
import { accessEnv, startDoubles, type Doubles } from '../../server/access/support/harness.js';

export interface AccessServer {
  readonly d: Doubles;
  readonly srv: TestServer;
  close(): Promise<void>;
}

/** `env` gives the paper-access settings for the doubles (default: on, with the harness's parser tokens). */
export async function startAccessServer(
  pat: string,
  env: (d: Doubles) => Record<string, string> = accessEnv,
): Promise<AccessServer> {
  const d = await startDoubles();
  return startOnTop(
    () => d.close(),
    async () => {
      const srv = await startTestServer({ ...env(d), SVC_SYSTEM_PAT: pat });
      return { d, srv, close: () => srv.close() };
    },
  );
}
