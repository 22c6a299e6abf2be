/** This process's open file descriptors, from `/proc/self/fd` (Linux): leak checks of files and temp copies. */
import { readdirSync, readlinkSync } from 'node:fs';

/** How many descriptors are open. */
export const openDescriptorCount = (): number => readdirSync('/proc/self/fd').length;

/** What each open descriptor points at (a removed file shows as `<path> (deleted)`; one closed meanwhile as ''). */
export const openDescriptorTargets = (): string[] =>
  readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  });
