// A command's output files, written under temporary names first and renamed into place together, last: a failure
// while any of them is written leaves none under its final name.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';
import { temporaryPathFor } from './temporaryFiles.js';

/** A complete file under its temporary name, waiting to be renamed to `finalPath`. */
export interface StagedFile {
  readonly finalPath: string;
  readonly temporaryPath: string;
}

/**
 * Writes `content` under a temporary name beside `finalPath`.
 * @throws UserError naming `finalPath` and what failed (nothing is left behind).
 */
export function stageFile(finalPath: string, content: string | Uint8Array): StagedFile {
  const temporaryPath = temporaryPathFor(finalPath);
  try {
    writeFileSync(temporaryPath, content, { flag: 'wx' });
  } catch (error) {
    rmSync(temporaryPath, { force: true });
    throw new UserError(`cannot write ${finalPath}: ${systemErrorText(error)}`);
  }
  return { finalPath, temporaryPath };
}

/** Removes the temporary files of `files` (those not renamed yet). */
export function discardStagedFiles(files: readonly StagedFile[]): void {
  for (const file of files) rmSync(file.temporaryPath, { force: true });
}

/**
 * Renames `files` into place in order (put the file that marks the set complete last). When one rename fails, the
 * files renamed before it are removed again and the others discarded: the set appears whole or not at all.
 * @throws UserError naming the file that could not be renamed.
 */
export function commitStagedFiles(files: readonly StagedFile[]): void {
  for (let f = 0; f < files.length; f++) {
    try {
      renameSync(files[f].temporaryPath, files[f].finalPath);
    } catch (error) {
      for (const done of files.slice(0, f)) rmSync(done.finalPath, { force: true });
      discardStagedFiles(files.slice(f));
      throw new UserError(`cannot rename ${files[f].temporaryPath} to ${files[f].finalPath}: ${systemErrorText(error)}`);
    }
  }
}

/** Writes one file under a temporary name and renames it into place. */
export function writeFileAtomically(finalPath: string, content: string | Uint8Array): void {
  commitStagedFiles([stageFile(finalPath, content)]);
}
