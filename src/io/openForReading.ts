// Opening a file for reading, with the one-line user-facing error every reader gives when it cannot.
import { openSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';

/**
 * The descriptor of `path` opened read-only.
 * @param what how messages name the file, e.g. `input file` → `cannot read input file PATH: …`.
 * @throws UserError naming the file and the reason.
 */
export function openForReading(path: string, what?: string): number {
  try {
    return openSync(path, 'r');
  } catch (error) {
    throw new UserError(`cannot read ${what === undefined ? '' : `${what} `}${path}: ${systemErrorText(error)}`);
  }
}
