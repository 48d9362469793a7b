// Reading a .bed's records as they are (PLINK's codes): for the transposition into rows in memory (bedSampleRows.ts),
// and for a GPU kernel set that transposes them itself (PlaneMatrix.codeRecords, engine/blocks/codeRowPlanes.ts).
import { closeSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { UserError } from '../core/errors.js';
import { Watermark } from '../core/orderedProgress.js';
import type { BedRecords } from './genotypeSource.js';
import { openForReading } from './openForReading.js';
import { BED_HEADER_BYTES } from './plinkFileset.js';
import { systemErrorText } from './systemErrorText.js';

/** Records read in runs and copied to word-aligned places (readBedRecordsInto), per thread (grown as needed). */
let runBuffer = new Uint8Array(0);

/**
 * Reads records `[first, first + count)` of `records` (their PLINK codes as they are) into `into`, record k at byte
 * `k · stride` (stride ≥ the record's bytes), one read per run of consecutive records (a GPU kernel set's own read of a
 * .bed: PlaneMatrix.codeRecords).
 * @throws UserError naming the .bed when it cannot be read.
 */
export function readBedRecordsInto(records: BedRecords, into: Uint8Array, { first, count, stride }: { first: number; count: number; stride: number }): void {
  const bytesPerSnp = Math.ceil(records.numSample / 4);
  if (stride === bytesPerSnp) {
    readRecords({ bedPath: records.bedPath, snpIndices: records.snpIndices.subarray(first, first + count) }, bytesPerSnp, into);
    return;
  }
  // Whole words a record: each run read into a scratch, then its records copied to their places.
  const fd = openForReading(records.bedPath);
  try {
    const { snpIndices } = records;
    for (let k = 0; k < count;) {
      let end = k + 1;
      while (end < count && snpIndices[first + end] === snpIndices[first + end - 1] + 1) end++;
      const run = (end - k) * bytesPerSnp;
      if (runBuffer.length < run) runBuffer = new Uint8Array(run);
      readFully(fd, records.bedPath, runBuffer.subarray(0, run), BED_HEADER_BYTES + snpIndices[first + k] * bytesPerSnp);
      for (let r = k; r < end; r++) into.set(runBuffer.subarray((r - k) * bytesPerSnp, (r - k + 1) * bytesPerSnp), r * stride);
      k = end;
    }
  } finally {
    closeSync(fd);
  }
}

/** Reads the records `part.snpIndices` into `into`, one after another, one read per run of consecutive records. */
export function readRecords(part: { readonly bedPath: string; readonly snpIndices: Uint32Array }, bytesPerSnp: number, into: Uint8Array): void {
  const { bedPath, snpIndices } = part;
  const fd = openForReading(bedPath);
  try {
    for (let first = 0; first < snpIndices.length;) {
      let end = first + 1;
      while (end < snpIndices.length && snpIndices[end] === snpIndices[end - 1] + 1) end++;
      readFully(fd, bedPath, into.subarray(first * bytesPerSnp, end * bytesPerSnp), BED_HEADER_BYTES + snpIndices[first] * bytesPerSnp);
      first = end;
    }
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, path: string, into: Uint8Array, position: number): void {
  for (let done = 0; done < into.length;) {
    let got: number;
    try {
      got = readSync(fd, into, done, into.length - done, position + done);
    } catch (error) {
      throw new UserError(`cannot read ${path}: ${systemErrorText(error)}`);
    }
    if (got === 0) throw new UserError(`${path} ends at byte ${position + done}: the file shrank while it was read`);
    done += got;
  }
}

/** A .bed's records read into shared memory ahead of their use, each at a word-aligned place (PlaneMatrix.codeRecords). */
export interface BedRecordsAhead {
  /** Record k at byte k · stride (its PLINK codes as they are), over a SharedArrayBuffer. */
  readonly bytes: Uint8Array;
  readonly stride: number;
  /** Resolves once records `[0, recordEnd)` are in `bytes`; rejects with the read's UserError (or when stopped). */
  recordsReady(recordEnd: number): Promise<void>;
  /** Stops reading (the run failed first): waits not yet reached reject. */
  stop(): void;
}

/** Bytes of one read of a read-ahead, and reads in flight at once (the file system's thread pool serves them). */
const AHEAD_READ_BYTES = 8 << 20;
const AHEAD_READS_IN_FLIGHT = 4;

/**
 * Starts reading `records` into shared memory (off this thread: the reads run on libuv's pool) and returns at once; the
 * run copies them to the GPU as they arrive, rather than reading the file itself when the device is ready.
 */
export function readBedRecordsAhead(records: BedRecords): BedRecordsAhead {
  const bytesPerSnp = Math.ceil(records.numSample / 4);
  const stride = 4 * Math.ceil(bytesPerSnp / 4);
  const { snpIndices } = records;
  const numRecord = snpIndices.length;
  const bytes = new Uint8Array(new SharedArrayBuffer(Math.max(4, numRecord * stride)));
  // Runs of consecutive records of at most AHEAD_READ_BYTES, in order.
  const runs: { readonly first: number; readonly end: number }[] = [];
  const recordsPerRead = Math.max(1, Math.floor(AHEAD_READ_BYTES / bytesPerSnp));
  for (let first = 0; first < numRecord;) {
    let end = first + 1;
    while (end < numRecord && end - first < recordsPerRead && snpIndices[end] === snpIndices[end - 1] + 1) end++;
    runs.push({ first, end });
    first = end;
  }
  const arrived = new Watermark();
  const runDone = new Uint8Array(runs.length);
  let nextRun = 0;
  let doneUpTo = 0;
  const stopped = { now: false };
  const readRun = async (handle: FileHandle, scratch: Buffer | null): Promise<void> => {
    for (let r = nextRun++; r < runs.length; r = nextRun++) {
      if (stopped.now) throw new Error(`${records.bedPath}: the read was stopped`);
      const { first, end } = runs[r];
      const length = (end - first) * bytesPerSnp;
      const position = BED_HEADER_BYTES + snpIndices[first] * bytesPerSnp;
      const into = scratch ?? bytes.subarray(first * stride, first * stride + length);
      for (let done = 0; done < length;) {
        let got: number;
        try {
          ({ bytesRead: got } = await handle.read(into, done, length - done, position + done));
        } catch (error) {
          throw new UserError(`cannot read ${records.bedPath}: ${systemErrorText(error)}`);
        }
        if (got === 0) throw new UserError(`${records.bedPath} ends at byte ${position + done}: the file shrank while it was read`);
        done += got;
      }
      if (scratch !== null) {
        for (let k = first; k < end; k++) bytes.set(scratch.subarray((k - first) * bytesPerSnp, (k - first + 1) * bytesPerSnp), k * stride);
      }
      runDone[r] = 1;
      while (doneUpTo < runs.length && runDone[doneUpTo] === 1) doneUpTo++;
      arrived.advance(doneUpTo === runs.length ? numRecord : runs[doneUpTo].first);
    }
  };
  void (async () => {
    let handle: FileHandle | null = null;
    try {
      handle = await open(records.bedPath, 'r');
      const opened = handle;
      // Records of a word multiple are read in place; others through a scratch per reader, then copied to their places.
      await Promise.all(Array.from({ length: AHEAD_READS_IN_FLIGHT }, () =>
        readRun(opened, stride === bytesPerSnp ? null : Buffer.alloc(recordsPerRead * bytesPerSnp))));
    } catch (error) {
      arrived.fail(error instanceof UserError ? error : new UserError(`cannot read ${records.bedPath}: ${systemErrorText(error)}`));
    } finally {
      await handle?.close().catch(() => undefined);
    }
  })();
  return {
    bytes, stride, recordsReady: (recordEnd) => arrived.whenReached(recordEnd),
    stop: () => {
      stopped.now = true;
    },
  };
}
