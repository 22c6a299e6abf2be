/**
 * Local directory backend (CONTRACT §3.5): app keys as relative paths under `SVC_RAW_DIR`, metadata in a
 * `<file>.meta.json` sidecar, create-if-absent via `link()`, noncurrent versions under `.versions/`.
 *
 * Writers and metadata readers of one key are serialised by an in-process mutex (the server lock guarantees a
 * single process); the content file is always the last thing to appear, so no torn object is ever visible.
 */
import { createHash, randomBytes } from 'node:crypto';
import { close as closeFd, createReadStream, fstat, open as openFd, constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Readable } from 'node:stream';
import { isObjectStoreError, type UpstreamError } from '../../shared/domain-errors.js';
import { INDEX_BUCKET_KEY, routeKey, routeObjectKey } from './keys.js';
import { KeyedMutex } from './keyed-mutex.js';
import { ownedTempName, removeStaleTemps } from './temp-files.js';
import {
  objectStoreError,
  type ByteRange,
  type GotObject,
  type IndexFile,
  type IndexObject,
  type ListedObject,
  type ObjectBody,
  type ObjectInfo,
  type ObjectStore,
  type ObjectVersion,
  type OpenedIndex,
  type PutOptions,
  type PutResult,
} from './object-store.js';

/** The metadata sidecar beside each content file; bundle validation refuses image names that end in it. */
export const SIDECAR = '.meta.json';
const TMP_DIR = '.tmp';
const VERSIONS_DIR = '.versions';
const STALE_TEMP_MS = 60 * 60 * 1000;

interface Sidecar {
  sha256?: string;
  content_type?: string;
  metadata?: Record<string, string>;
}

const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException | null)?.code === code;

function wrap(op: string, key: string, err: unknown): UpstreamError {
  if (isObjectStoreError(err)) return err;
  return objectStoreError(`${op} ${key}: ${(err as Error).message}`, err);
}

/** `yyyymmddThhmmssZ` in UTC. */
function versionStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

export class LocalObjectStore implements ObjectStore {
  readonly backend = 'local' as const;
  private readonly mutex = new KeyedMutex();

  constructor(readonly root: string) {}

  private contentPath(key: string): string {
    routeObjectKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  private get tmpDir(): string {
    return path.join(this.root, TMP_DIR);
  }

  /**
   * Removes temp files older than 1 h (§3.5), and sooner those whose owning process (named in the file name) is
   * gone: `pksd papers sync` and `storage prune` write here while the server runs, so live owners' files stay.
   */
  async start(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
    await removeStaleTemps(this.tmpDir, { maxAgeMs: STALE_TEMP_MS });
  }

  private tempPath(): string {
    return path.join(this.tmpDir, ownedTempName());
  }

  /** Copies the body into `<raw>/.tmp/<random>`. */
  private async stage(body: ObjectBody): Promise<string> {
    await mkdir(this.tmpDir, { recursive: true });
    const tmp = this.tempPath();
    if (Buffer.isBuffer(body)) await writeFile(tmp, body, { flag: 'wx' });
    else await copyFile(body.path, tmp, fsConstants.COPYFILE_EXCL);
    return tmp;
  }

  private async writeSidecar(content: string, options: PutOptions): Promise<void> {
    const sidecar: Sidecar = {
      ...(options.metadata['sha256'] ? { sha256: options.metadata['sha256'] } : {}),
      content_type: options.contentType,
      metadata: { ...options.metadata },
    };
    const tmp = this.tempPath();
    await writeFile(tmp, JSON.stringify(sidecar), { flag: 'wx' });
    await rename(tmp, content + SIDECAR);
  }

  private async readSidecar(content: string): Promise<Sidecar> {
    try {
      const parsed = JSON.parse(await readFile(content + SIDECAR, 'utf8')) as unknown;
      return parsed !== null && typeof parsed === 'object' ? (parsed as Sidecar) : {};
    } catch {
      return {};
    }
  }

  private async info(
    key: string,
    content: string,
    st: { size: number; mtime: Date; mtimeMs: number; ino: number },
  ): Promise<ObjectInfo> {
    const sidecar = await this.readSidecar(content);
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(sidecar.metadata ?? {}))
      if (typeof v === 'string') metadata[k.toLowerCase()] = v;
    if (typeof sidecar.sha256 === 'string' && metadata['sha256'] === undefined) metadata['sha256'] = sidecar.sha256;
    return {
      key,
      size: st.size,
      etag: localEtag(st),
      lastModified: st.mtime,
      contentType: sidecar.content_type ?? null,
      metadata,
    };
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const content = this.contentPath(key);
    return this.mutex.run(key, async () => {
      try {
        const st = await stat(content);
        if (!st.isFile()) return null;
        return await this.info(key, content, st);
      } catch (err) {
        if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return null;
        throw wrap('head', key, err);
      }
    });
  }

  async get(key: string, range?: ByteRange): Promise<GotObject | null> {
    const content = this.contentPath(key);
    return this.mutex.run(key, async () => {
      let handle;
      try {
        handle = await open(content, 'r');
      } catch (err) {
        if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR') || isCode(err, 'EISDIR')) return null;
        throw wrap('get', key, err);
      }
      try {
        const st = await handle.stat();
        // `open` succeeds on a directory (`sub` of `sub/a.png`); only files are objects.
        if (!st.isFile()) {
          await handle.close();
          return null;
        }
        const info = await this.info(key, content, st);
        if (!range) return { info, body: handle.createReadStream({ autoClose: true }) };
        if (range.start >= st.size) {
          await handle.close();
          return { info, body: Readable.from([]), range: 'unsatisfiable' as const };
        }
        const sent = { start: range.start, end: Math.min(range.end ?? st.size - 1, st.size - 1) };
        return { info, body: handle.createReadStream({ ...sent, autoClose: true }), range: sent };
      } catch (err) {
        await handle.close().catch(() => undefined);
        throw wrap('get', key, err);
      }
    });
  }

  async putIfAbsent(key: string, body: ObjectBody, options: PutOptions): Promise<PutResult | null> {
    const content = this.contentPath(key);
    let tmp: string | null = null;
    try {
      tmp = await this.stage(body);
      const staged = tmp;
      return await this.mutex.run(key, async () => {
        if (await exists(content)) return null;
        await mkdir(path.dirname(content), { recursive: true });
        await this.writeSidecar(content, options);
        try {
          await link(staged, content);
        } catch (err) {
          if (isCode(err, 'EEXIST')) return null;
          throw err;
        }
        return { etag: localEtag(await stat(content)) };
      });
    } catch (err) {
      throw wrap('put', key, err);
    } finally {
      if (tmp !== null) await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  /** Moves the current object (content + sidecar) to `.versions/<key>/<stamp>-<hex>`; content stays until replaced. */
  private async preserveCurrent(key: string, content: string, moveContent: boolean): Promise<void> {
    if (!(await exists(content))) return;
    const dir = path.join(this.root, VERSIONS_DIR, ...key.split('/'));
    await mkdir(dir, { recursive: true });
    const target = path.join(dir, `${versionStamp(new Date())}-${randomBytes(3).toString('hex')}`);
    if (moveContent) await rename(content, target);
    else await link(content, target);
    try {
      if (moveContent) await rename(content + SIDECAR, target + SIDECAR);
      else await copyFile(content + SIDECAR, target + SIDECAR);
    } catch (err) {
      if (!isCode(err, 'ENOENT')) throw err;
    }
  }

  async put(key: string, body: ObjectBody, options: PutOptions): Promise<PutResult> {
    const content = this.contentPath(key);
    let tmp: string | null = null;
    try {
      tmp = await this.stage(body);
      const staged = tmp;
      const etag = await this.mutex.run(key, async () => {
        await mkdir(path.dirname(content), { recursive: true });
        await this.preserveCurrent(key, content, false);
        await this.writeSidecar(content, options);
        await rename(staged, content);
        return localEtag(await stat(content));
      });
      tmp = null;
      return { etag };
    } catch (err) {
      throw wrap('put', key, err);
    } finally {
      if (tmp !== null) await rm(tmp, { force: true }).catch(() => undefined);
    }
  }

  async delete(key: string): Promise<void> {
    const content = this.contentPath(key);
    try {
      await this.mutex.run(key, () => this.preserveCurrent(key, content, true));
    } catch (err) {
      throw wrap('delete', key, err);
    }
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    routeKey(prefix);
    const cut = prefix.lastIndexOf('/');
    const baseRel = cut < 0 ? prefix : prefix.slice(0, cut);
    const keys: { key: string; size: number; mtime: Date; ino: number; mtimeMs: number }[] = [];
    try {
      await this.walk(path.join(this.root, ...baseRel.split('/')), baseRel, async (key, full) => {
        if (!key.startsWith(prefix)) return;
        const st = await stat(full);
        keys.push({ key, size: st.size, mtime: st.mtime, ino: st.ino, mtimeMs: st.mtimeMs });
      });
    } catch (err) {
      throw wrap('list', prefix, err);
    }
    keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const k of keys) yield { key: k.key, size: k.size, etag: localEtag(k), lastModified: k.mtime };
  }

  private async walk(dir: string, rel: string, visit: (key: string, full: string) => Promise<void>): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return;
      throw err;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      const key = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (rel === '' && (e.name === TMP_DIR || e.name === VERSIONS_DIR)) continue;
        await this.walk(full, key, visit);
      } else if (e.isFile() && !e.name.endsWith(SIDECAR)) {
        await visit(key, full);
      }
    }
  }

  async *listVersions(prefix: string): AsyncIterable<ObjectVersion> {
    routeKey(prefix);
    const out: ObjectVersion[] = [];
    for await (const obj of this.list(prefix)) {
      out.push({
        key: obj.key,
        versionId: 'current',
        size: obj.size,
        lastModified: obj.lastModified ?? new Date(0),
        isLatest: true,
        deleteMarker: false,
      });
    }
    const versionsRoot = path.join(this.root, VERSIONS_DIR);
    try {
      // Each noncurrent version is a file below a directory named after its app key.
      await this.walk(versionsRoot, '', async (rel, full) => {
        const slash = rel.lastIndexOf('/');
        if (slash < 0) return;
        const key = rel.slice(0, slash);
        if (!key.startsWith(prefix)) return;
        const st = await stat(full);
        out.push({
          key,
          versionId: rel.slice(slash + 1),
          size: st.size,
          lastModified: st.mtime,
          isLatest: false,
          deleteMarker: false,
        });
      });
    } catch (err) {
      throw wrap('list versions', prefix, err);
    }
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : b.lastModified.getTime() - a.lastModified.getTime()));
    yield* out;
  }

  async deleteVersion(key: string, versionId: string): Promise<void> {
    routeObjectKey(key);
    if (versionId === 'current' || !/^\d{8}T\d{6}Z-[0-9a-f]{6}$/.test(versionId)) {
      throw objectStoreError(`delete version ${key}: not a noncurrent version id: ${versionId}`);
    }
    const file = path.join(this.root, VERSIONS_DIR, ...key.split('/'), versionId);
    try {
      await rm(file, { force: true });
      await rm(file + SIDECAR, { force: true });
    } catch (err) {
      throw wrap('delete version', key, err);
    }
  }

  private get indexPath(): string {
    return path.join(this.root, ...INDEX_BUCKET_KEY.split('/'));
  }

  /**
   * The index file's ETag is its sha256 (CONTRACT §4.2). Hashing a large index is costly (0.5 s for 460 MiB), so
   * the digest is kept with the file's identity (inode, size, mtime), in memory and in the file's sidecar (written
   * by `writeIndexFile`, as other objects' sha256), and recomputed only when neither matches the file as it is now.
   */
  private indexDigest: IndexDigest | null = null;

  async readIndex(): Promise<IndexObject | null> {
    try {
      // Stat and read through one descriptor, so the signature belongs to exactly the bytes read (writes rename).
      const handle = await open(this.indexPath, 'r');
      let bytes: Buffer;
      let signature: string;
      try {
        signature = fileSignature(await handle.stat());
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
      const etag = (await this.knownIndexEtag(signature)) ?? (await sha256Chunked(bytes));
      this.indexDigest = { signature, etag };
      return { bytes, etag };
    } catch (err) {
      if (isCode(err, 'ENOENT')) return null;
      throw wrap('read', INDEX_BUCKET_KEY, err);
    }
  }

  /**
   * The index file opened (one descriptor: the signature belongs to exactly the bytes it reads, and a later write's
   * rename leaves them as they are); its sha256 from the sidecar when the signature matches, else hashed through it.
   */
  async openIndex(): Promise<OpenedIndex | null> {
    let fd: number;
    try {
      fd = await promisify(openFd)(this.indexPath, 'r');
    } catch (err) {
      if (isCode(err, 'ENOENT')) return null;
      throw wrap('read', INDEX_BUCKET_KEY, err);
    }
    try {
      const st = await promisify(fstat)(fd);
      const signature = fileSignature(st);
      const etag = (await this.knownIndexEtag(signature)) ?? (await sha256OfFd(fd));
      this.indexDigest = { signature, etag };
      return { fd, size: st.size, etag };
    } catch (err) {
      await promisify(closeFd)(fd).catch(() => undefined);
      throw wrap('read', INDEX_BUCKET_KEY, err);
    }
  }

  async indexEtag(): Promise<string | null> {
    try {
      return await this.currentIndexEtag();
    } catch (err) {
      throw wrap('read', INDEX_BUCKET_KEY, err);
    }
  }

  async indexTempPath(): Promise<string> {
    try {
      await mkdir(this.tmpDir, { recursive: true });
    } catch (err) {
      throw wrap('write', INDEX_BUCKET_KEY, err);
    }
    return this.tempPath();
  }

  /** Renames the file (from `indexTempPath`: the same file system) into place; its sha256 is the new ETag. */
  async writeIndexFile(file: IndexFile, expectedEtag: string | null): Promise<string | null> {
    try {
      return await this.mutex.run('\0index', async () => {
        if ((await this.currentIndexEtag()) !== expectedEtag) return null;
        await mkdir(path.dirname(this.indexPath), { recursive: true });
        await rename(file.path, this.indexPath);
        const signature = await this.indexSignature();
        this.indexDigest = signature === null ? null : { signature, etag: file.sha256 };
        if (this.indexDigest !== null) await this.writeIndexDigest(this.indexDigest);
        return file.sha256;
      });
    } catch (err) {
      throw wrap('write', INDEX_BUCKET_KEY, err);
    } finally {
      await rm(file.path, { force: true }).catch(() => undefined); // not published: the file is ours to remove
    }
  }

  /** Presigning is unavailable (§3.5): the files have no address outside the server; callers fall back to arXiv. */
  async presignGet(key: string): Promise<string | null> {
    routeObjectKey(key);
    return null;
  }

  private async indexSignature(): Promise<string | null> {
    try {
      return fileSignature(await stat(this.indexPath));
    } catch (err) {
      if (isCode(err, 'ENOENT')) return null;
      throw err;
    }
  }

  /** The ETag of the index file as it is now, hashing (streamed) only when it changed since last seen. */
  private async currentIndexEtag(): Promise<string | null> {
    const signature = await this.indexSignature();
    if (signature === null) return null;
    const known = await this.knownIndexEtag(signature);
    if (known !== null) return known;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(this.indexPath, { highWaterMark: HASH_CHUNK_BYTES })) {
      hash.update(chunk as Buffer);
    }
    const etag = hash.digest('hex');
    this.indexDigest = { signature, etag };
    return etag;
  }

  /** The index file's sha256 if the file (`signature`) is the one last hashed here or recorded in its sidecar. */
  private async knownIndexEtag(signature: string): Promise<string | null> {
    if (this.indexDigest?.signature === signature) return this.indexDigest.etag;
    try {
      const saved = JSON.parse(await readFile(this.indexPath + SIDECAR, 'utf8')) as IndexSidecar | null;
      return saved?.signature === signature && typeof saved.sha256 === 'string' ? saved.sha256 : null;
    } catch {
      return null; // absent or torn: hash the file
    }
  }

  /**
   * Records the digest beside the index (temp + rename); another process's load then needs no hash. Only a cache:
   * when it cannot be written, the index write still stands and a reader hashes the file.
   */
  private async writeIndexDigest(digest: IndexDigest): Promise<void> {
    const tmp = this.tempPath();
    const sidecar: IndexSidecar = { sha256: digest.etag, signature: digest.signature };
    try {
      await writeFile(tmp, JSON.stringify(sidecar), { flag: 'wx' });
      await rename(tmp, this.indexPath + SIDECAR);
    } catch {
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }
}

/** The sha256 (`etag`) of the index file whose identity was `signature`. */
interface IndexDigest {
  signature: string;
  etag: string;
}

/** The index file's sidecar: its sha256 while the file is the one of `signature` (inode, size, mtime). */
interface IndexSidecar {
  sha256?: unknown;
  signature?: unknown;
}

const HASH_CHUNK_BYTES = 1024 * 1024;

const fileSignature = (st: { ino: number; size: number; mtimeMs: number }) => `${st.ino}:${st.size}:${st.mtimeMs}`;

/** sha256 of a buffer in slices, yielding to the event loop between them (a large index must not stall requests). */
async function sha256Chunked(bytes: Buffer): Promise<string> {
  const hash = createHash('sha256');
  for (let offset = 0; offset < bytes.length; offset += HASH_CHUNK_BYTES) {
    hash.update(bytes.subarray(offset, offset + HASH_CHUNK_BYTES));
    if (offset + HASH_CHUNK_BYTES < bytes.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex');
}

/** sha256 of the file open as `fd`, read in slices from its start (the descriptor stays open). */
async function sha256OfFd(fd: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream('', { fd, start: 0, autoClose: false, highWaterMark: HASH_CHUNK_BYTES })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

function localEtag(st: { size: number; mtimeMs: number; ino: number }): string {
  return `"${st.ino.toString(16)}-${st.size.toString(16)}-${Math.floor(st.mtimeMs * 1000).toString(16)}"`;
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return false;
    throw err;
  }
}
