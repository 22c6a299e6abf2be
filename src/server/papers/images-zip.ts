/**
 * `GET /api/papers/{id}/images/zip` (CONTRACT §18.2): a paper's stored images as one zip, streamed — each image is
 * read from the store only when the writer reaches it, so memory stays flat whatever the paper holds.
 *
 * The bytes depend only on the names, sizes and contents of the images (docs/decisions.md): members
 * `images/<name>` in name order, stored uncompressed (images are compressed already; this also makes the size
 * known up front, sent as `Content-Length`), every timestamp the DOS epoch 1980-01-01 00:00:00 with no extended
 * timestamp field, the same mode for every member, no comment.
 */
import type { PassThrough, Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import { NotFoundError } from '../../shared/domain-errors.js';
import type { VersionedPreprintId } from '../../shared/ids.js';
import { objectStoreError } from '../storage/object-store.js';
import { storedImages } from './paper-images.js';
import type { PaperService } from './service.js';

/** Member mode: a regular file, rw-r--r--. */
const MEMBER_MODE = 0o100644;

/**
 * "Zero" timestamp of every member: the earliest DOS date. yazl encodes DOS time from local-time fields, so the
 * date is built from local fields too: the same bytes in every time zone.
 */
const dosEpoch = () => new Date(1980, 0, 1, 0, 0, 0);

export interface ImagesZip {
  /** The zip's size in bytes (known before the first byte: members are stored with their listed sizes). */
  readonly size: number;
  readonly body: Readable;
}

/** The zip of the paper's stored images; `NotFoundError('no images stored for <id>')` when there are none. */
export async function imagesZip(papers: PaperService, id: VersionedPreprintId): Promise<ImagesZip> {
  const images = await storedImages(papers, id);
  if (images.length === 0) throw new NotFoundError(`no images stored for ${id.id}`);
  const zip = new ZipFile();
  const body = zip.outputStream as PassThrough;
  /** The image being read into the zip. */
  let current: Readable | null = null;
  const fail = (err: Error) => {
    current?.destroy();
    body.destroy(err);
  };
  zip.on('error', fail);
  // A client that leaves stops the image being read (the store's stream would otherwise stay open).
  body.on('close', () => current?.destroy());
  for (const image of images) {
    const options = {
      size: image.size,
      compress: false,
      mtime: dosEpoch(),
      forceDosTimestamp: true,
      mode: MEMBER_MODE,
    };
    zip.addReadStreamLazy(`images/${image.name}`, options, (deliver) => {
      papers.readObject(image.key).then(
        (got) => {
          if (got === null) return fail(objectStoreError(`get ${image.key}: removed while the zip was written`));
          current = got.body;
          got.body.on('error', fail);
          deliver(null, got.body);
        },
        (err: unknown) => fail(err as Error),
      );
    });
  }
  const size = await new Promise<number>((resolve) => zip.end(undefined, resolve as () => void));
  return { size, body };
}
