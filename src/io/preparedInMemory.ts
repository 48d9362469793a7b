// A genotype source prepared into memory instead of a file: the packed vectors (SPEC §1, as `prepare` writes them)
// in one SharedArrayBuffer that the run's threads read in place, and the sidecar `prepare` would write beside them
// (the same SHA-256 of the same bytes). For inputs whose rows the source counts beforehand (a .bed); whole .bed records,
// class-ordered or not, are read and converted in bulk.
import { createHash } from 'node:crypto';
import { UserError } from '../core/errors.js';
import { readBedRecordsAsPacked } from './bedRecordReads.js';
import { countMissingCodes } from './genotypeCodes.js';
import { wholeBedRecordsOf, type GenotypeSource } from './genotypeSource.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import { SnpColumns, sidecarOf, type PrepareOptions } from './prepareGenotypes.js';
import type { PreparedSidecar } from './preparedSidecar.js';
import { classOrderedRecordsOf, type ClassOrderedRecords } from './phenotypes.js';

/** Packed vectors in shared memory and their sidecar. */
export interface PreparedInMemory {
  /** numVector × ceil(numField / 4) bytes over a SharedArrayBuffer. */
  readonly packed: Uint8Array;
  readonly sidecar: PreparedSidecar;
}

/** The bytes `source`'s packed vectors take, where it counts its rows beforehand; else null. */
export function preparedBytesOf(source: GenotypeSource): number | null {
  return source.numSnpKnown === null ? null : source.numSnpKnown * packedBytesPerVector(source.sampleIds.length);
}

/**
 * Reads `source` (SNP-major, in source order) into shared memory. @throws Error when the source does not count its
 * rows beforehand or yields another number of them; UserError for an empty source and for the source's read errors.
 */
export async function prepareGenotypesInMemory(
  source: GenotypeSource, options: Pick<PrepareOptions, 'skippedSites' | 'selection' | 'caseControl'>,
): Promise<PreparedInMemory> {
  const numSnp = source.numSnpKnown;
  if (numSnp === null) throw new Error(`${source.path}: rows are prepared in memory only where their number is known beforehand`);
  const bytesPerVector = packedBytesPerVector(source.sampleIds.length);
  const packed = new Uint8Array(new SharedArrayBuffer(numSnp * bytesPerVector));
  const columns = new SnpColumns();
  for await (const row of source.rows()) {
    if (columns.numSnp === numSnp) throw new Error(`${source.path}: more rows than the ${numSnp} announced`);
    packed.set(row.packed.subarray(0, bytesPerVector), columns.numSnp * bytesPerVector);
    columns.add(row);
  }
  if (columns.numSnp === 0) throw new UserError(`${source.path}: no SNPs to prepare`);
  if (columns.numSnp !== numSnp) throw new Error(`${source.path}: ${columns.numSnp} rows, not the ${numSnp} announced`);
  const packedSha256 = createHash('sha256').update(packed).digest('hex');
  const sidecar = sidecarOf(source, columns, { ...options, vectors: 'snps', packedSha256, vectorOrder: null });
  return { packed, sidecar };
}

/**
 * Reads `source` into shared memory straight from its .bed when its rows are whole .bed records (bedRecordsOf: every
 * sample, in order; a selection of SNPs by description keeps that): a .bed record is a SNP's packed vector but for the
 * codes and the pad bits, so the records are read in runs and converted in place, without a row at a time. Null when
 * the rows are not such records, or are none (prepareGenotypesInMemory and prepare report that).
 * @throws UserError naming the .bed when it cannot be read.
 */
export function prepareBedRecordsInMemory(
  source: GenotypeSource, options: Pick<PrepareOptions, 'skippedSites' | 'selection' | 'caseControl'>,
): PreparedInMemory | null {
  const whole = wholeBedRecordsOf(source);
  const classOrdered = whole === null ? classOrderedRecordsOf(source) : null;
  if (whole === null && classOrdered === null) return null;
  const snps = whole?.snps ?? classOrdered!.snps;
  const bytesPerVector = packedBytesPerVector(source.sampleIds.length);
  const packed = new Uint8Array(new SharedArrayBuffer(snps.length * bytesPerVector));
  const numMissingCalls = whole !== null ? readBedRecordsAsPacked(whole.records, packed) : readClassOrderedRecords(classOrdered!, packed);
  const columns = SnpColumns.of(snps, numMissingCalls);
  const packedSha256 = createHash('sha256').update(packed).digest('hex');
  return { packed, sidecar: sidecarOf(source, columns, { ...options, vectors: 'snps', packedSha256, vectorOrder: null }) };
}

/** Class-ordered records read this many source bytes at a time (bounded scratch whatever the file size). */
const CLASS_ORDER_CHUNK_BYTES = 4 << 20;

/** `ordered`'s rows, one after another in `packed` (⌈kept samples / 4⌉ bytes each); returns their missing calls. */
function readClassOrderedRecords(ordered: ClassOrderedRecords, packed: Uint8Array): number {
  const { records, classOrder } = ordered;
  const numSnp = records.snpIndices.length;
  const bytesIn = packedBytesPerVector(records.numSample);
  const bytesOut = packedBytesPerVector(classOrder.numKept);
  const rowsPerChunk = Math.max(1, Math.floor(CLASS_ORDER_CHUNK_BYTES / bytesIn));
  const scratch = new Uint8Array(Math.min(rowsPerChunk, numSnp) * bytesIn);
  for (let first = 0; first < numSnp; first += rowsPerChunk) {
    const count = Math.min(rowsPerChunk, numSnp - first);
    readBedRecordsAsPacked(records, scratch, { first, count });
    classOrder.reorderRows(scratch, count, packed.subarray(first * bytesOut, (first + count) * bytesOut));
  }
  // Pad codes are 00: the missing codes of all rows at once are the kept samples' missing calls.
  return countMissingCodes(packed.subarray(0, numSnp * bytesOut));
}
