/**
 * Start-time cleanup of temp files (staged uploads, local-backend temp files): dead owners' files go at once,
 * live owners' files stay until they are 1 h old.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Stager } from '../../../src/server/papers/staging.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import { ownedTempName, ownerGone, removeStaleTemps } from '../../../src/server/storage/temp-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-temps-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A pid that certainly ran and is gone: a child that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

/** `ownedTempName(prefix)` with another owner pid. */
const nameOwnedBy = (pid: number, prefix = '') => ownedTempName(prefix).replace(/^(\D*)\d+-/, `$1${pid}-`);

const HOUR = 3600_000;

describe('owned temp files', () => {
  it('names carry the owner; dead owners and our own pid (a predecessor) are gone, live owners are not', async () => {
    expect(ownedTempName('upload-')).toMatch(new RegExp(`^upload-${process.pid}-[A-Za-z0-9-]+-[0-9a-f]{24}$`));
    expect(ownerGone(nameOwnedBy(await deadPid()))).toBe(true);
    expect(ownerGone(ownedTempName())).toBe(true);
    expect(ownerGone(nameOwnedBy(process.ppid))).toBe(false);
    // Another host's owner cannot be checked; names without an owner neither.
    expect(ownerGone(nameOwnedBy(await deadPid()).replace(/-[A-Za-z0-9-]+-([0-9a-f]{24})$/, '-elsewhere-$1'))).toBe(
      false,
    );
    expect(ownerGone('0123456789abcdef01234567')).toBe(false);
  });

  it('removeStaleTemps: dead owners at once, anything after max age, live owners and fresh unknowns kept', async () => {
    const dead = nameOwnedBy(await deadPid(), 'upload-');
    const live = nameOwnedBy(process.ppid, 'upload-');
    const liveOld = nameOwnedBy(process.ppid, 'upload-').replace(/.{4}$/, 'aaaa');
    const other = 'something-else';
    for (const n of [dead, live, liveOld, 'upload-unowned', other]) await writeFile(path.join(dir, n), 'x');
    const old = new Date(Date.now() - 2 * HOUR);
    await utimes(path.join(dir, liveOld), old, old);
    await utimes(path.join(dir, other), old, old);
    const removed = await removeStaleTemps(dir, { prefix: 'upload-', maxAgeMs: HOUR });
    expect(removed.sort()).toEqual([dead, liveOld].sort());
    expect((await readdir(dir)).sort()).toEqual([live, other, 'upload-unowned'].sort());
  });

  it('Stager.start removes a killed server’s staged upload, keeps a live process’s', async () => {
    const tmp = path.join(dir, 'tmp');
    await mkdir(tmp);
    const dead = nameOwnedBy(await deadPid(), 'upload-');
    const live = nameOwnedBy(process.ppid, 'upload-');
    await writeFile(path.join(tmp, dead), '%PDF-partial');
    await writeFile(path.join(tmp, live), '%PDF-in-flight');
    expect(await new Stager(tmp).start()).toEqual([dead]);
    expect(await readdir(tmp)).toEqual([live]);
  });

  it('LocalObjectStore.start removes a dead owner’s temp file at once (and keeps a live one’s)', async () => {
    const tmp = path.join(dir, '.tmp');
    await mkdir(tmp);
    const dead = nameOwnedBy(await deadPid());
    const live = nameOwnedBy(process.ppid);
    await writeFile(path.join(tmp, dead), 'x');
    await writeFile(path.join(tmp, live), 'y');
    await new LocalObjectStore(dir).start();
    expect(await readdir(tmp)).toEqual([live]);
  });
});
