/**
 * HTTP helpers of the papers routes: the uploader header and receiving one multipart file part (§9.3 steps 3–4).
 */
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { DomainError, InvalidInputError, UnsupportedMediaTypeError } from '../../shared/domain-errors.js';
import type { StagedFile } from '../papers/staging.js';
import { SourceStreamError } from '../papers/staging.js';

/** `SVC_USER_HEADER`'s value when configured and present, else `null`. */
export function headerUser(request: FastifyRequest, userHeader: string | null): string | null {
  if (userHeader === null) return null;
  const v = request.headers[userHeader.toLowerCase()];
  const value = Array.isArray(v) ? v[0] : v;
  return value !== undefined && value.trim() !== '' ? value.trim() : null;
}

/** 415 unless the request is `multipart/form-data`. */
export function requireMultipart(request: FastifyRequest, part: string): void {
  const header = request.headers['content-type'] ?? '';
  const type = header.split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data' || !request.isMultipart()) {
    throw new UnsupportedMediaTypeError(
      `unsupported media type '${type}'; send multipart/form-data with a '${part}' part`,
    );
  }
}

const parseError = (err: unknown) => new InvalidInputError(`parse multipart: ${(err as Error).message}`);

/**
 * Reads the whole multipart body: the first file part named `field` (or any of the names `field` lists) goes to
 * `stage`; every other part is drained and ignored. Resolves to the staged file (the caller owns it). Errors, in
 * order of the steps: malformed multipart → 400 `parse multipart: …`; no such part → 400 `missing '<field>'
 * multipart part` (the first name); then whatever staging threw (413, …). A staged file is removed on every failure.
 */
export async function receiveFilePart(
  request: FastifyRequest,
  field: string | readonly string[],
  limit: number,
  stage: (file: Readable) => Promise<StagedFile>,
): Promise<StagedFile> {
  let staged: StagedFile | null = null;
  let stageError: unknown = null;
  let found = false;
  const names: readonly string[] = typeof field === 'string' ? [field] : field;
  try {
    // Larger buffers mean fewer, bigger chunks through the parser and the stager (upload throughput).
    const parts = request.parts({
      limits: { fileSize: limit + 1, parts: 1000 },
      highWaterMark: 1 << 20,
      fileHwm: 1 << 20,
    });
    for await (const part of parts) {
      if (part.type !== 'file') continue;
      if (!names.includes(part.fieldname) || found) {
        part.file.resume();
        continue;
      }
      found = true;
      try {
        staged = await stage(part.file);
      } catch (err) {
        stageError = err;
        part.file.resume(); // let the parser reach the end of the request
      }
    }
  } catch (err) {
    await staged?.remove();
    // Staging stopped reading the part (e.g. the disk filled up), which also breaks the parser: the cause wins.
    if (stageError !== null && !(stageError instanceof SourceStreamError)) throw stageError;
    if (err instanceof DomainError) throw err;
    throw parseError(err);
  }
  if (stageError instanceof SourceStreamError) throw parseError(stageError);
  if (stageError !== null) throw stageError;
  if (!found || staged === null) throw new InvalidInputError(`missing '${names[0]}' multipart part`);
  return staged;
}
