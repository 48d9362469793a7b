// The per-rank binary metrics files of SPEC §7: record layout, coordinate encoding and file names.
//
// A record is `numWay` little-endian uint32 coordinates then one little-endian float32 value; a coordinate
// is `2·G + E` (global vector index G, entry bit E). Files carry no header, so a reader must be told numWay.
import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { NumWay } from '../core/types.js';

/** Whether typed arrays on this host are little-endian, as the files are: then a record's bytes are its u32 words. */
export const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Bytes of one record: numWay coordinates and one value, 4 bytes each. */
export function metricsRecordBytes(numWay: NumWay): number {
  return 4 * (numWay + 1);
}

/** Largest global vector index a coordinate can hold (2·G + 1 must fit in a uint32). */
export const MAX_VECTOR_INDEX_IN_COORD = 2 ** 31 - 1;

/** The coordinate of vector `vectorIdx` with entry bit `entryBit` (0 or 1): 2·G + E. */
export function encodeMetricCoord(vectorIdx: number, entryBit: number): number {
  return vectorIdx * 2 + entryBit;
}

/** Global vector index of a coordinate. */
export function coordVectorIndex(coord: number): number {
  return coord >>> 1;
}

/** Entry bit of a coordinate. */
export function coordEntryBit(coord: number): number {
  return coord & 1;
}

/**
 * The output file of `rank`: `<stub>_<rank>.bin`, the rank zero-padded to as many digits as the rank
 * count has (SPEC §7), so that the files of one run sort in rank order.
 */
export function metricsFilePath(stub: string, rank: number, numRanks: number): string {
  if (!Number.isSafeInteger(rank) || !Number.isSafeInteger(numRanks) || rank < 0 || rank >= numRanks) {
    throw new RangeError(`rank ${rank} is not in [0, ${numRanks})`);
  }
  return `${stub}_${String(rank).padStart(String(numRanks).length, '0')}.bin`;
}

/**
 * Finished output files of any earlier run with this stub (`<stub>_<digits>.bin`), sorted; a missing
 * directory has none. Temporary files of unfinished runs are not included. Paths are spelled like
 * {@link metricsFilePath} spells them (`<stub>_…`), so the two can be compared as strings.
 */
export function findExistingOutputs(stub: string): string[] {
  const stubName = basename(stub);
  const namePattern = new RegExp(`^${escapeRegExp(stubName)}_\\d+\\.bin$`);
  let names: string[];
  try {
    names = readdirSync(dirname(stub));
  } catch {
    return [];
  }
  return names.filter((name) => namePattern.test(name)).sort().map((name) => stub + name.slice(stubName.length));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
