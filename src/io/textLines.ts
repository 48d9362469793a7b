// Streams the lines of a text file, plain or gzip/BGZF-compressed (detected by its magic bytes), with line numbers.
//
// BGZF (bgzip) is a series of concatenated gzip members; Node's gunzip decodes every member, not just the
// first, so one createGunzip() reads plain gzip and BGZF alike (tested with hand-made BGZF blocks).
import { openForReading } from './openForReading.js';
import { closeSync, createReadStream, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';

/** One line of a file, without its line ending; `lineNumber` counts from 1. */
export interface NumberedLine {
  readonly text: string;
  readonly lineNumber: number;
}

/** True when the file starts with the gzip magic bytes 1f 8b. */
export function isGzipFile(path: string): boolean {
  const fd = openForReading(path);
  try {
    const head = new Uint8Array(2);
    const got = readSync(fd, head, 0, 2, 0);
    return got === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Yields the lines of `path` one at a time (bounded memory: one buffered chunk and one line). A trailing
 * `\r` is removed. Read or decompression failures become a UserError naming the file.
 */
export async function* readTextLines(path: string): AsyncGenerator<NumberedLine> {
  const gzip = isGzipFile(path);
  const file = createReadStream(path);
  let stream: Readable = file;
  let failure: Error | null = null;
  const remember = (error: Error): void => { failure ??= error; };
  file.on('error', remember);
  if (gzip) {
    const gunzip = createGunzip();
    gunzip.on('error', remember);
    stream = file.pipe(gunzip);
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  // Depending on when it happens, a stream error either ends readline's iteration or is thrown by it:
  // both end the loop, and the error is reported once below.
  stream.on('error', () => lines.close());
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      yield { text: line.endsWith('\r') ? line.slice(0, -1) : line, lineNumber };
      if (failure !== null) break;
    }
  } catch (error) {
    if (!(error instanceof Error) || error instanceof UserError) throw error;
    remember(error);
  } finally {
    lines.close();
    file.destroy();
  }
  if (failure !== null) {
    const what = gzip ? 'decompress' : 'read';
    throw new UserError(`cannot ${what} ${path} after line ${lineNumber}: ${describeStreamError(failure)}`);
  }
}

function describeStreamError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'Z_BUF_ERROR') return 'the compressed data ends early (truncated file)';
  if (code === 'Z_DATA_ERROR') return 'corrupt compressed data';
  return systemErrorText(error);
}
