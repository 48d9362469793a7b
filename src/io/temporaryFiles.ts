// Temporary names of files being written (renamed into place when complete), and the removal of leftovers.
// Every writer names its file `<final>.<pid>-<8 hex>.tmp` beside the final path, so an interrupted command
// can find the unfinished files of its outputs by name, whichever thread or process (an MPI rank) was writing
// them, and a later `--force` can tell the leftovers of a killed process from files still being written.
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const TEMPORARY_SUFFIX = /\.(\d+)-[0-9a-f]{8}\.tmp$/;

/** The name `finalPath` is written under until it is complete (same directory, so the rename is atomic). */
export function temporaryPathFor(finalPath: string): string {
  return `${finalPath}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

/** Whether the file name `name` is a temporary name (made by any process) that starts with `namePrefix`. */
export function isTemporaryNameFor(name: string, namePrefix: string): boolean {
  return name.startsWith(namePrefix) && TEMPORARY_SUFFIX.test(name);
}

/** Options of {@link removeTemporaryFilesOf}. */
export interface TemporaryRemovalOptions {
  /** Only files this process made (its pid in their names): e.g. those of its in-process ranks after one failed. */
  readonly onlyThisProcess?: boolean;
}

/**
 * Removes the temporary files whose paths start with `pathPrefix` (in its directory, e.g. `out/run_` for those of
 * the rank files `out/run_<rank>.bin`) and returns their paths. Best effort: an unreadable directory or a
 * file that is already gone is skipped.
 */
export function removeTemporaryFilesOf(pathPrefix: string, options: TemporaryRemovalOptions = {}): string[] {
  const prefix = basename(pathPrefix);
  const ownPid = String(process.pid);
  return removeMatching(dirname(pathPrefix), (name) =>
    isTemporaryNameFor(name, prefix) && (options.onlyThisProcess !== true || TEMPORARY_SUFFIX.exec(name)?.[1] === ownPid));
}

/**
 * `--force`: removes the temporary files in `directory` of final names that `isFinalName` accepts, left by processes
 * that no longer run on this host (a run killed by SIGKILL); returns their paths. Files of running processes stay.
 */
export function removeLeftoverTemporaries(directory: string, isFinalName: (name: string) => boolean): string[] {
  return removeMatching(directory, (name) => {
    const match = TEMPORARY_SUFFIX.exec(name);
    return match !== null && isFinalName(name.slice(0, match.index)) && !processRuns(Number(match[1]));
  });
}

/** The final paths' leftovers (see {@link removeLeftoverTemporaries}), for outputs named one by one. */
export function removeLeftoverTemporariesOfFiles(finalPaths: readonly string[]): string[] {
  return finalPaths.flatMap((path) => removeLeftoverTemporaries(dirname(path), (name) => name === basename(path)));
}

function processRuns(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeMatching(directory: string, matches: (name: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!matches(name)) continue;
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
