/**
 * moto on a port of the test's choosing, with its process exposed, so a test can stop it (SIGSTOP/SIGCONT keeps its
 * in-memory state), kill it, and start a new one on the same address the server is configured with. The harness in
 * test/support/moto.ts picks the port itself and hides the process; this wrapper adds those two things only.
 */
import { spawn } from 'node:child_process';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../support/free-port.js';
import { VENV_PYTHON } from '../../support/python.js';
import { isRunning, startFaultProcess, until, type FaultProcess } from './processes.js';
import { MOTO_MAIN } from '../../support/moto.js';

export interface MotoProcess extends FaultProcess {
  readonly endpoint: string;
  readonly port: number;
}

const MOTO_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing', region: 'us-east-1' } as const;

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
}

/** `freeze` keeps moto's objects; `kill` loses them and `restart` brings up an empty moto on the same port. */
export async function startMotoProcess(): Promise<MotoProcess> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const controls = await startFaultProcess(
    () => {
      const child = spawn(VENV_PYTHON, ['-c', MOTO_MAIN, '-H', '127.0.0.1', '-p', String(port)], {
        stdio: ['pipe', 'ignore', 'ignore'],
        env: { ...process.env, PYTHONUNBUFFERED: '1' },
      });
      child.stdin!.on('error', () => undefined);
      return child;
    },
    (child) =>
      until('moto to answer', async () => {
        if (!isRunning(child)) throw new Error('moto exited before it answered');
        return answers(endpoint);
      }),
  );
  // Object.assign keeps the `child` getter (a spread would copy its current value).
  return Object.assign(controls, { endpoint, port });
}

/** An S3 client for `moto`; the caller destroys it. */
export function motoS3Client(moto: MotoProcess): S3Client {
  return new S3Client({
    endpoint: moto.endpoint,
    region: MOTO_CREDENTIALS.region,
    forcePathStyle: true,
    credentials: { accessKeyId: MOTO_CREDENTIALS.accessKeyId, secretAccessKey: MOTO_CREDENTIALS.secretAccessKey },
  });
}

/** Creates the three asset buckets named `<prefix>-pdf`, `-md`, `-img`; returns pksd's settings for them. */
export async function createBuckets(moto: MotoProcess, prefix: string): Promise<Record<string, string>> {
  const client = motoS3Client(moto);
  try {
    for (const kind of ['pdf', 'md', 'img'])
      await client.send(new CreateBucketCommand({ Bucket: `${prefix}-${kind}` }));
  } finally {
    client.destroy();
  }
  return {
    SVC_OBJ_ENDPOINT: moto.endpoint,
    SVC_OBJ_REGION: MOTO_CREDENTIALS.region,
    SVC_OBJ_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
    SVC_OBJ_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
    SVC_OBJ_BUCKET_PDF: `${prefix}-pdf`,
    SVC_OBJ_BUCKET_MD: `${prefix}-md`,
    SVC_OBJ_BUCKET_IMAGES: `${prefix}-img`,
  };
}
