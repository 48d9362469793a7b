// Reads the records of a per-rank metrics file (SPEC §7) back, chunk by chunk, for `dump` and tests.
import { openForReading } from './openForReading.js';
import { closeSync, readSync, statSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { LITTLE_ENDIAN_HOST, metricsRecordBytes } from './metricsFile.js';
import { systemErrorText } from './systemErrorText.js';

/**
 * A run of consecutive records: record r has coordinates `coords[r·numWay …]` and value `values[r]`; `words` holds
 * them as the file lays them out, host-order u32 (numWay coordinates, then the value's bits), for writers.
 */
export interface MetricsRecordChunk {
  readonly coords: Uint32Array;
  readonly values: Float32Array;
  readonly words: Uint32Array;
  readonly numRecords: number;
}


/** One record: `numWay` coordinates (2·G + E each) and its float32 value. */
export interface MetricsRecord {
  readonly coords: readonly number[];
  readonly value: number;
}

const DEFAULT_RECORDS_PER_CHUNK = 1 << 16;

/**
 * Number of records in a metrics file.
 * @throws UserError when the file cannot be read or its size is not a whole number of numWay-way records.
 */
export function countMetricsRecords(path: string, numWay: NumWay): number {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new UserError(`cannot read metrics file ${path}: ${systemErrorText(error)}`);
  }
  const recordBytes = metricsRecordBytes(numWay);
  if (size % recordBytes !== 0) {
    throw new UserError(
      `metrics file ${path} has ${size} bytes, not a whole number of ${numWay}-way records ` +
      `(${recordBytes} bytes each); is --way right?`);
  }
  return size / recordBytes;
}

/** Yields the file's records in order, in chunks of at most `recordsPerChunk` (fresh arrays each time). */
export function* readMetricsFileChunks(
  path: string, numWay: NumWay, recordsPerChunk: number = DEFAULT_RECORDS_PER_CHUNK,
): Generator<MetricsRecordChunk> {
  const numRecords = countMetricsRecords(path, numWay);
  const recordBytes = metricsRecordBytes(numWay);
  const fd = openForReading(path, 'metrics file');
  try {
    for (let first = 0; first < numRecords; first += recordsPerChunk) {
      const count = Math.min(recordsPerChunk, numRecords - first);
      const bytes = new Uint8Array(count * recordBytes);
      let done = 0;
      while (done < bytes.length) {
        const got = readSync(fd, bytes, done, bytes.length - done, first * recordBytes + done);
        if (got === 0) throw new UserError(`metrics file ${path} shrank while it was being read`);
        done += got;
      }
      yield decodeRecords(bytes, numWay, count);
    }
  } finally {
    closeSync(fd);
  }
}

/** Yields the file's records one by one (convenient; use the chunk reader for large files). */
export function* readMetricsFileRecords(path: string, numWay: NumWay): Generator<MetricsRecord> {
  for (const chunk of readMetricsFileChunks(path, numWay)) {
    for (let r = 0; r < chunk.numRecords; r++) {
      yield { coords: Array.from(chunk.coords.subarray(r * numWay, (r + 1) * numWay)), value: chunk.values[r] };
    }
  }
}

/** A chunk over the file's bytes: the record words at once, coordinates and values split out when first asked for. */
function decodeRecords(bytes: Uint8Array, numWay: NumWay, numRecords: number): MetricsRecordChunk {
  const stride = numWay + 1;
  const numWords = numRecords * stride;
  // The file is little-endian: on such hosts its bytes are the words (a fresh, aligned buffer).
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const words = LITTLE_ENDIAN_HOST ? new Uint32Array(bytes.buffer, bytes.byteOffset, numWords)
    : Uint32Array.from({ length: numWords }, (_, w) => view.getUint32(4 * w, true));
  let coords: Uint32Array | undefined;
  let values: Float32Array | undefined;
  return {
    words,
    numRecords,
    get coords(): Uint32Array {
      if (coords === undefined) {
        coords = new Uint32Array(numRecords * numWay);
        for (let r = 0; r < numRecords; r++) for (let w = 0; w < numWay; w++) coords[r * numWay + w] = words[r * stride + w];
      }
      return coords;
    },
    get values(): Float32Array {
      if (values === undefined) {
        const bits = new Uint32Array(numRecords);
        for (let r = 0; r < numRecords; r++) bits[r] = words[r * stride + numWay];
        values = new Float32Array(bits.buffer);
      }
      return values;
    },
  };
}
