// Reading a .bed's records as they are (PLINK's codes): for the transposition into rows in memory (bedSampleRows.ts),
// and for a GPU kernel set that transposes them itself (PlaneMatrix.codeRecords, engine/blocks/codeRowPlanes.ts); or
// converted in bulk into SNP vectors (prepare, and packed vectors in memory).
import { closeSync, readSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { convertBedRecordsInPlace } from './genotypeCodes.js';
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

/**
 * Reads `records` (all of them, or `[first, first + count)`) into `into` one after another as SPEC-coded packed vectors
 * (genotypeCodes.ts convertBedRecordsInPlace); returns their missing calls.
 * @throws UserError naming the .bed when it cannot be read.
 */
export function readBedRecordsAsPacked(records: BedRecords, into: Uint8Array, part: { first: number; count: number } = { first: 0, count: records.snpIndices.length }): number {
  const bytesPerSnp = Math.ceil(records.numSample / 4);
  const packed = into.subarray(0, part.count * bytesPerSnp);
  readRecords({ bedPath: records.bedPath, snpIndices: records.snpIndices.subarray(part.first, part.first + part.count) }, bytesPerSnp, packed);
  return convertBedRecordsInPlace(packed, records.numSample);
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
