// A text file written whole under a temporary name (temporaryFiles.ts) and renamed into place only when the caller
// commits it: a run writes its histogram file once every rank's work is reduced, and renames it with the rank files.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';
import { temporaryPathFor } from './temporaryFiles.js';

/** A complete file under its temporary name. */
export interface PendingTextFile {
  /** Where `commit` puts it. */
  readonly path: string;
  /** Renames it into place (replacing a file of that name). */
  commit(): void;
  /** Removes it (the run failed). */
  discard(): void;
}

/**
 * Writes `text` to a temporary file beside `path`.
 * @throws UserError naming `what` and `path` when it cannot be written.
 */
export function writePendingTextFile(path: string, text: string, what: string): PendingTextFile {
  const temporary = temporaryPathFor(path);
  const fail = (error: unknown): never => {
    rmSync(temporary, { force: true });
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `directory ${dirname(path)} does not exist` : systemErrorText(error);
    throw new UserError(`cannot write ${what} ${path}: ${reason}`);
  };
  try {
    writeFileSync(temporary, text, { flag: 'wx' });
  } catch (error) {
    fail(error);
  }
  return {
    path,
    commit: () => {
      try {
        renameSync(temporary, path);
      } catch (error) {
        fail(error);
      }
    },
    discard: () => rmSync(temporary, { force: true }),
  };
}
