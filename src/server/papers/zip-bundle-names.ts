/**
 * Image names a store can hold (CONTRACT §9.4 extraction rules, tightened so every backend holds every accepted
 * bundle): the name becomes an object key `images/<yymm>/<stem>/<name>`, on the local backend a file path whose
 * metadata lives next to it in `<file>.meta.json`.
 */

import { SIDECAR as LOCAL_SIDECAR_SUFFIX } from '../storage/local-store.js';

/** File systems hold names of at most 255 bytes, and the sidecar name must fit too. */
export const MAX_SEGMENT_BYTES = 255 - LOCAL_SIDECAR_SUFFIX.length;

/** S3 keys hold at most 1024 bytes; `<yymm>/<stem>/` takes the rest. */
export const MAX_IMAGE_NAME_BYTES = 900;

/** Why an image name (the path below `images/`) cannot be stored, or `null`. */
export function imageNameProblem(file: string, maxSegmentLength: number): string | null {
  if (Buffer.byteLength(file, 'utf8') > MAX_IMAGE_NAME_BYTES) return `longer than ${MAX_IMAGE_NAME_BYTES} bytes`;
  for (const segment of file.split('/')) {
    if (segment === '') return 'empty path segment';
    if (segment === '.') return '. path segment';
    if (segment.length > maxSegmentLength) return `a path segment longer than ${maxSegmentLength} characters`;
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      return `a path segment longer than ${MAX_SEGMENT_BYTES} bytes`;
    }
    // A file named like a sidecar would be read as (or overwrite) another image's metadata.
    if (segment.toLowerCase().endsWith(LOCAL_SIDECAR_SUFFIX)) return `ends in the reserved ${LOCAL_SIDECAR_SUFFIX}`;
  }
  return null;
}

/**
 * The first name (of names sorted in code-unit order) that is also a directory of another name (`q.png` and
 * `q.png/b.png`): a file system cannot hold both.
 */
export function fileAndDirectory(sortedFiles: readonly string[]): string | null {
  const files = new Set(sortedFiles);
  for (const file of sortedFiles) {
    const segments = file.split('/');
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join('/');
      if (files.has(dir)) return dir;
    }
  }
  return null;
}
