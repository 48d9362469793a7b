// Buffered writer of one per-rank metrics file: writes under a temporary name, then renames into place.
//
// Why a temporary name: a run that fails or is interrupted must never leave a file that looks finished,
// because the next run refuses to overwrite finished files and `dump` would read a truncated result.
import { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { LITTLE_ENDIAN_HOST, metricsRecordBytes } from './metricsFile.js';
import { systemErrorText } from './systemErrorText.js';
import { temporaryPathFor } from './temporaryFiles.js';

/** Default size of the write buffer: large enough that writeSync calls are rare, small next to the tallies. */
export const DEFAULT_WRITE_BUFFER_BYTES = 1 << 20;


type WriterState = 'open' | 'finished' | 'committed' | 'discarded';

/** Options of {@link MetricsFileWriter.create}. */
export interface MetricsFileWriterOptions {
  /** Size of the write buffer in bytes (rounded down to whole records; at least one record). */
  readonly bufferBytes?: number;
}

/**
 * Writes the records of one rank. Life cycle: `create` → `append`… → `finish` (flushed and closed, still
 * under the temporary name) → `commit` (renamed to `finalPath`). `discard` removes the temporary file at
 * any point before `commit`; call it when the run fails.
 */
export class MetricsFileWriter {
  /** Records appended so far. */
  numRecordsWritten = 0;
  private state: WriterState = 'open';
  private fd: number | null;
  private readonly bufferBytes: Uint8Array;
  private readonly bufferWords: Uint32Array;
  private readonly bufferView: DataView;
  private readonly capacityRecords: number;
  private bufferedRecords = 0;

  private constructor(
    /** Where `commit` puts the file. */
    readonly finalPath: string,
    /** Where the file is written until `commit`: same directory, so the rename is atomic. */
    readonly temporaryPath: string,
    readonly numWay: NumWay,
    fd: number,
    bufferBytes: number,
  ) {
    this.fd = fd;
    const recordBytes = metricsRecordBytes(numWay);
    this.capacityRecords = Math.max(1, Math.floor(bufferBytes / recordBytes));
    const buffer = new ArrayBuffer(this.capacityRecords * recordBytes);
    this.bufferBytes = new Uint8Array(buffer);
    this.bufferWords = new Uint32Array(buffer);
    this.bufferView = new DataView(buffer);
  }

  /**
   * Opens a new temporary file next to `finalPath`.
   * @throws UserError when the file cannot be created (missing directory, permissions).
   */
  static create(finalPath: string, numWay: NumWay, options: MetricsFileWriterOptions = {}): MetricsFileWriter {
    const temporaryPath = temporaryPathFor(finalPath);
    let fd: number;
    try {
      fd = openSync(temporaryPath, 'wx');
    } catch (error) {
      // ENOENT also comes from directories that exist but make no files, such as /proc.
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync(dirname(finalPath))
        ? `directory ${dirname(finalPath)} does not exist` : systemErrorText(error);
      throw new UserError(`cannot create output file ${finalPath}: ${reason}`);
    }
    return new MetricsFileWriter(
      finalPath, temporaryPath, numWay, fd, options.bufferBytes ?? DEFAULT_WRITE_BUFFER_BYTES);
  }

  /**
   * Appends `numRecords` records laid out as in the file: per record numWay coordinates, then the float32 value's
   * bits, as host-order u32 words (the engine's buffers, a read chunk's `words`: one copy, no per-record work on
   * little-endian hosts). On little-endian hosts a buffer's worth or more, with nothing buffered before it, goes to
   * the file from `words` itself (2-way GPU runs append hundreds of MiB a panel: a copy would be a second pass).
   */
  appendRecordWords(words: Uint32Array, numRecords: number): void {
    this.expectState('open', 'appendRecordWords');
    const stride = this.numWay + 1;
    if (!Number.isSafeInteger(numRecords) || numRecords < 0 || words.length < numRecords * stride) {
      throw new RangeError(`appendRecordWords of ${numRecords} records: ${words.length} words`);
    }
    let record = 0;
    while (record < numRecords) {
      if (LITTLE_ENDIAN_HOST && this.bufferedRecords === 0 && numRecords - record >= this.capacityRecords) {
        this.writeAll(new Uint8Array(words.buffer, words.byteOffset + 4 * record * stride, 4 * (numRecords - record) * stride));
        break;
      }
      const count = Math.min(numRecords - record, this.capacityRecords - this.bufferedRecords);
      const from = words.subarray(record * stride, (record + count) * stride);
      const at = this.bufferedRecords * stride;
      if (LITTLE_ENDIAN_HOST) {
        this.bufferWords.set(from, at);
      } else {
        for (let w = 0; w < from.length; w++) this.bufferView.setUint32(4 * (at + w), from[w], true);
      }
      this.bufferedRecords += count;
      record += count;
      if (this.bufferedRecords === this.capacityRecords) this.flush();
    }
    this.numRecordsWritten += numRecords;
  }

  /** Flushes and closes the file; it keeps its temporary name until `commit`. */
  finish(): void {
    this.expectState('open', 'finish');
    this.flush();
    this.closeFile();
    this.state = 'finished';
  }

  /** Renames the finished file to `finalPath` (replacing any file there). */
  commit(): void {
    this.expectState('finished', 'commit');
    try {
      renameSync(this.temporaryPath, this.finalPath);
    } catch (error) {
      throw new UserError(`cannot rename ${this.temporaryPath} to ${this.finalPath}: ${systemErrorText(error)}`);
    }
    this.state = 'committed';
  }

  /** Closes and removes the temporary file. Safe to call more than once; does nothing after `commit`. */
  discard(): void {
    if (this.state === 'committed' || this.state === 'discarded') return;
    try {
      this.closeFile();
    } finally {
      rmSync(this.temporaryPath, { force: true });
      this.state = 'discarded';
    }
  }

  private flush(): void {
    const fd = this.fd;
    if (fd === null || this.bufferedRecords === 0) return;
    this.writeAll(this.bufferBytes.subarray(0, this.bufferedRecords * metricsRecordBytes(this.numWay)));
    this.bufferedRecords = 0;
  }

  private writeAll(bytes: Uint8Array): void {
    const fd = this.fd;
    if (fd === null) throw new Error('MetricsFileWriter: write after close');
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      throw new UserError(`cannot write output file ${this.finalPath}: ${systemErrorText(error)}`);
    }
  }

  private closeFile(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    closeSync(fd);
  }

  private expectState(expected: WriterState, operation: string): void {
    if (this.state !== expected) {
      throw new Error(`MetricsFileWriter.${operation}() on a writer that is ${this.state}, not ${expected}`);
    }
  }
}
