// Temporary names of files being written (renamed into place when complete), and the removal of leftovers.
// Every writer names its file `<final>.<pid>-<8 hex>.tmp` beside the final path, so an interrupted command
// can find the unfinished files of its outputs by name, whichever thread or process (an MPI rank) was writing
// them.
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const TEMPORARY_SUFFIX = /\.\d+-[0-9a-f]{8}\.tmp$/;

/** The name `finalPath` is written under until it is complete (same directory, so the rename is atomic). */
export function temporaryPathFor(finalPath: string): string {
  return `${finalPath}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

/** Whether the file name `name` is a temporary name (made by any process) that starts with `namePrefix`. */
export function isTemporaryNameFor(name: string, namePrefix: string): boolean {
  return name.startsWith(namePrefix) && TEMPORARY_SUFFIX.test(name);
}

/**
 * Removes the temporary files whose paths start with `pathPrefix` (in its directory, e.g. `out/run_` for those of
 * the rank files `out/run_<rank>.bin`) and returns their paths. Best effort: an unreadable directory or a
 * file that is already gone is skipped.
 */
export function removeTemporaryFilesOf(pathPrefix: string): string[] {
  const directory = dirname(pathPrefix);
  const prefix = basename(pathPrefix);
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!isTemporaryNameFor(name, prefix)) continue;
    const path = join(directory, name);
    try {
      rmSync(path, { force: true });
      removed.push(path);
    } catch {
      // Left for the user: the message counts only what was removed.
    }
  }
  return removed;
}
