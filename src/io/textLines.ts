// Streams the lines of a text file, plain or gzip/BGZF-compressed (detected by its magic bytes), with line numbers:
// as bytes in batches (large files), or one string at a time; a small plain file is read and decoded at once.
//
// BGZF (bgzip) is a series of concatenated gzip members; Node's gunzip decodes every member, not just the
// first, so one createGunzip() reads plain gzip and BGZF alike (tested with hand-made BGZF blocks).
import { openForReading } from './openForReading.js';
import { closeSync, createReadStream, fstatSync, readSync } from 'node:fs';
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
 * Whole lines of a file, a batch at a time: line k of the batch is `bytes[starts[k], ends[k])`, without its line
 * ending (`\n`, or `\r\n`), and is line `firstLineNumber + k` of the file. The batch's arrays are only valid until
 * the next batch is requested.
 */
export interface LineBatch {
  readonly bytes: Buffer;
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly firstLineNumber: number;
}

/** Bytes read (or decompressed) at a time: lines are found and handed on in batches of about this size. */
const READ_CHUNK_BYTES = 1 << 20;
/**
 * Longest line read. A VCF data line holds every sample's call and FORMAT fields (about 4 bytes a sample for GT
 * alone, some 30 with AD:DP:GQ:PL), so this allows millions of samples; a file that is one huge line (or no text at
 * all) is refused once this much of it is held, naming the line, rather than filling the memory.
 */
export const MAX_LINE_BYTES = 128 << 20;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Options of {@link readLineBatches}. */
export interface LineReadOptions {
  /** Longest line accepted, in bytes (default {@link MAX_LINE_BYTES}). */
  readonly maxLineBytes?: number;
  /** forEachTextLine(In): plain files of at most this many bytes are read whole (default WHOLE_READ_MAX_BYTES). */
  readonly wholeReadMaxBytes?: number;
}

/** Bytes `[start, end)` of `bytes`: whole lines, each ending with a newline but perhaps the file's last. */
interface LineSpan {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
}

/**
 * Yields the lines of `path` in batches (bounded memory: a batch, and a line longer than one, up to
 * `maxLineBytes`). The bytes are not decoded: readers of large files parse them as they are (vcfReader.ts). Read or
 * decompression failures and overlong lines become a UserError naming the file and the line.
 */
export async function* readLineBatches(path: string, options: LineReadOptions = {}): AsyncGenerator<LineBatch> {
  let lineNumber = 0;
  const starts: number[] = [];
  const ends: number[] = [];
  for await (const { bytes, start: spanStart, end: spanEnd } of readLineSpans(path, options, () => lineNumber)) {
    starts.length = 0;
    ends.length = 0;
    for (let start = spanStart; start < spanEnd;) {
      const newline = bytes.indexOf(NEWLINE, start);
      const next = newline < 0 || newline >= spanEnd ? spanEnd : newline;
      starts.push(start);
      ends.push(next > start && bytes[next - 1] === CARRIAGE_RETURN ? next - 1 : next);
      start = next + 1;
    }
    yield { bytes, starts, ends, firstLineNumber: lineNumber + 1 };
    lineNumber += starts.length;
  }
}

/**
 * The lines of `path` as spans of whole lines (readLineBatches without a start and end per line, for readers that
 * scan a span's text themselves). `lineNumber` says how many lines the caller has seen, for the overlong-line error.
 */
async function* readLineSpans(path: string, options: LineReadOptions, lineNumber: () => number = () => 0): AsyncGenerator<LineSpan> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const gzip = isGzipFile(path);
  const file = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  let stream: Readable = file;
  let failure: Error | null = null;
  const remember = (error: Error): void => { failure ??= error; };
  file.on('error', remember);
  if (gzip) {
    const gunzip = createGunzip({ chunkSize: READ_CHUNK_BYTES });
    gunzip.on('error', remember);
    stream = file.pipe(gunzip);
  }
  // Bytes [0, filled) of `held` are not handed on yet: the start of a line whose end has not been read.
  let held = Buffer.alloc(2 * READ_CHUNK_BYTES);
  let filled = 0;
  try {
    for await (const piece of stream as AsyncIterable<Buffer>) {
      if (filled + piece.length > held.length) {
        const grown = Buffer.alloc(Math.max(2 * held.length, filled + piece.length));
        held.copy(grown, 0, 0, filled);
        held = grown;
      }
      const searchFrom = filled;
      piece.copy(held, filled);
      filled += piece.length;
      const lastNewline = held.lastIndexOf(NEWLINE, filled - 1);
      if (lastNewline >= searchFrom) {
        yield { bytes: held, start: 0, end: lastNewline + 1 };
        held.copy(held, 0, lastNewline + 1, filled);
        filled -= lastNewline + 1;
      }
      // What is held now is the start of one line.
      if (filled > maxLineBytes) {
        throw new UserError(`${path} line ${lineNumber() + 1} is longer than ${describeBytes(maxLineBytes)} (the most a line may have)`);
      }
      if (failure !== null) break;
    }
  } catch (error) {
    if (!(error instanceof Error) || error instanceof UserError) throw error;
    remember(error);
  } finally {
    file.destroy();
  }
  if (failure !== null) {
    const what = gzip ? 'decompress' : 'read';
    throw new UserError(`cannot ${what} ${path} after line ${lineNumber()}: ${describeStreamError(failure)}`);
  }
  // The last line, when the file does not end with a newline.
  if (filled > 0) yield { bytes: held, start: 0, end: filled };
}

/**
 * Yields the lines of `path` one at a time as UTF-8 text (bounded memory: a batch of lines). Read or decompression
 * failures become a UserError naming the file.
 */
export async function* readTextLines(path: string): AsyncGenerator<NumberedLine> {
  for await (const batch of readLineBatches(path)) {
    for (let k = 0; k < batch.starts.length; k++) {
      yield { text: batch.bytes.toString('utf8', batch.starts[k], batch.ends[k]), lineNumber: batch.firstLineNumber + k };
    }
  }
}

/**
 * Plain files of at most this many bytes are read whole and synchronously by forEachTextLine(In): a .fam or .bim of a
 * few hundred thousand lines. A stream's setup, its reads through the thread pool and a Buffer.indexOf call per line
 * cost ~10–20 ms a file at a run's start, where the whole read takes well under one.
 */
const WHOLE_READ_MAX_BYTES = 16 << 20;

/** The text of `path` when it is a plain (not gzip) file of at most `maxBytes`, else null. */
function smallPlainText(path: string, maxBytes: number): string | null {
  const fd = openForReading(path);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) return null;
    // One byte more than the size: a file that grew since is read by the stream instead.
    const bytes = Buffer.allocUnsafe(size + 1);
    let filled = 0;
    while (filled < bytes.length) {
      const got = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (got === 0) break;
      filled += got;
    }
    if (filled > size || (filled >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b)) return null;
    return bytes.toString('utf8', 0, filled);
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`cannot read ${path}: ${systemErrorText(error)}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls `onLine` with each line of `text` (cut as readLineBatches cuts a file: at each newline, a carriage return
 * before it dropped, a last line without one kept) as `text.slice(start, end)`, numbered on from `linesBefore`;
 * returns the number of the last line.
 */
function forEachLineOf(
  text: string, linesBefore: number, onLine: (text: string, start: number, end: number, lineNumber: number) => void,
): number {
  let lineNumber = linesBefore;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const next = newline < 0 ? text.length : newline;
    onLine(text, start, next > start && text.charCodeAt(next - 1) === 13 ? next - 1 : next, ++lineNumber);
    start = next + 1;
  }
  return lineNumber;
}

/**
 * Calls `onLine` with each line of `path` as UTF-8 text, in order — readTextLines without an await per line, for files
 * of many short lines (.bim, .fam), whose lines it would otherwise spend most of its time handing on one by one.
 */
export async function forEachTextLine(
  path: string, onLine: (text: string, lineNumber: number) => void, options: LineReadOptions = {},
): Promise<void> {
  const whole = smallPlainText(path, options.wholeReadMaxBytes ?? WHOLE_READ_MAX_BYTES);
  if (whole !== null) {
    forEachLineOf(whole, 0, (text, start, end, lineNumber) => onLine(text.slice(start, end), lineNumber));
    return;
  }
  for await (const batch of readLineBatches(path, options)) {
    for (let k = 0; k < batch.starts.length; k++) onLine(batch.bytes.toString('utf8', batch.starts[k], batch.ends[k]), batch.firstLineNumber + k);
  }
}

/**
 * Calls `onLine` with each line of `path` as `text.slice(start, end)` — forEachTextLine without a string per line: a
 * batch of lines is decoded as one UTF-8 string (the same text: a newline ends any sequence) that a reader of many
 * short lines (.bim) scans in place.
 */
export async function forEachTextLineIn(
  path: string, onLine: (text: string, start: number, end: number, lineNumber: number) => void, options: LineReadOptions = {},
): Promise<void> {
  const whole = smallPlainText(path, options.wholeReadMaxBytes ?? WHOLE_READ_MAX_BYTES);
  if (whole !== null) {
    forEachLineOf(whole, 0, onLine);
    return;
  }
  let lineNumber = 0;
  for await (const span of readLineSpans(path, options, () => lineNumber)) {
    lineNumber = forEachLineOf(span.bytes.toString('utf8', span.start, span.end), lineNumber, onLine);
  }
}

function describeStreamError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'Z_BUF_ERROR') return 'the compressed data ends early (truncated file)';
  if (code === 'Z_DATA_ERROR') return 'corrupt compressed data';
  return systemErrorText(error);
}

function describeBytes(bytes: number): string {
  return bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes} bytes`;
}
