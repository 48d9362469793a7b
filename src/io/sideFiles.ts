// Small files read whole (JSON side files: sidecars, run-info files) with a size cap, and file identity (device
// and inode) to tell whether an output would be one of a command's inputs, whatever the path's spelling.
import { closeSync, fstatSync, readSync, statSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { openForReading } from './openForReading.js';

/**
 * The text of the regular file `path`, at most `maxBytes` long.
 * @param what how messages name the file, e.g. `run-info file`.
 * @throws UserError when it cannot be read, is not a regular file, or is larger than `maxBytes`.
 */
export function readBoundedTextFile(path: string, what: string, maxBytes: number): string {
  const fd = openForReading(path, what);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw new UserError(`${what} ${path} has ${size} bytes, more than the ${describeBytes(maxBytes)} such a file may have`);
    // One byte more than the cap: a file that grows while it is read is refused, not read without end.
    const bytes = Buffer.alloc(Math.min(size, maxBytes) + 1);
    let done = 0;
    for (let got = -1; got !== 0 && done < bytes.length; done += got) got = readSync(fd, bytes, done, bytes.length - done, done);
    if (done > maxBytes) throw new UserError(`${what} ${path} grew past ${describeBytes(maxBytes)} while it was read`);
    return bytes.toString('utf8', 0, done);
  } finally {
    closeSync(fd);
  }
}

/** Where a file lies: its device and inode (the file a hard or symbolic link names, however its path is spelled). */
export interface FileIdentity {
  readonly device: bigint;
  readonly inode: bigint;
}

/** The identity of the file `path` names, or null when there is none (or it cannot be looked at). */
export function fileIdentity(path: string): FileIdentity | null {
  try {
    const stats = statSync(path, { bigint: true });
    return { device: stats.dev, inode: stats.ino };
  } catch {
    return null;
  }
}

/** The first of `inputs` that is the same file as `output` (both existing), or null. */
export function inputSameAs(output: string, inputs: readonly string[]): string | null {
  const target = fileIdentity(output);
  if (target === null) return null;
  for (const input of inputs) {
    const other = fileIdentity(input);
    if (other !== null && other.device === target.device && other.inode === target.inode) return input;
  }
  return null;
}

/**
 * Refuses outputs that are one of the inputs (an output that does not exist yet is none of them).
 * @param command how the message names the command, e.g. `prepare`.
 * @throws UserError naming both paths.
 */
export function refuseOutputOverInput(command: string, outputs: readonly string[], inputs: readonly string[]): void {
  for (const output of outputs) {
    const input = inputSameAs(output, inputs);
    if (input !== null) throw new UserError(`${command} would write ${output} over its own input ${input}; choose another output`);
  }
}

function describeBytes(bytes: number): string {
  return bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes} bytes`;
}
