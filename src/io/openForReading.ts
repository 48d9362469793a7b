// Opening a file for reading, with the one-line user-facing error every reader gives when it cannot. Only regular
// files are read: a device (/dev/zero, /dev/urandom), a FIFO or a directory never ends or never starts.
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';

/**
 * The descriptor of the regular file `path` opened read-only (a symbolic link is followed; what it names must be a
 * regular file too).
 * @param what how messages name the file, e.g. `input file` → `cannot read input file PATH: …`.
 * @throws UserError naming the file and the reason.
 */
export function openForReading(path: string, what?: string): number {
  const named = `${what === undefined ? '' : `${what} `}${path}`;
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it can be refused below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UserError(`cannot read ${named}: ${systemErrorText(error)}`);
  }
  const kind = fileKind(fd);
  if (kind !== null) {
    closeSync(fd);
    throw new UserError(`cannot read ${named}: it is ${kind}, not a regular file`);
  }
  return fd;
}

/** Null for a regular file, else what it is, in words. */
function fileKind(fd: number): string | null {
  const stats = fstatSync(fd);
  if (stats.isFile()) return null;
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}
