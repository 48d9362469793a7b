// SPEC §1 field codes of a SNP vector and their conversion from PLINK .bed codes and VCF allele counts.
import { popcount32 } from '../core/bitCodes.js';
import { packedBytesPerVector } from './packedVectorFile.js';

/** Field code of a call with `copies` (0, 1 or 2) of allele 1: `00`, `01`, `11` (SPEC §1). */
export const CODE_BY_ALLELE1_COPIES: readonly number[] = [0b00, 0b01, 0b11];
/** Field code of a missing call (SPEC §1; means missing in sparse mode). */
export const CODE_MISSING = 0b10;

/**
 * Converts one .bed byte (4 calls, LSB first) to SPEC codes. PLINK codes are `00` hom A1, `01` missing,
 * `10` het, `11` hom A2; SPEC codes are `11`, `10`, `01`, `00` for the same calls, i.e. every 2-bit code
 * x becomes 3 − x, which is the bitwise NOT of the byte.
 */
export function bedByteToPacked(bedByte: number): number {
  return ~bedByte & 0xff;
}

/** Number of `10` (missing) codes in each possible packed byte. */
const MISSING_CODES_IN_BYTE: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) {
    for (let shift = 0; shift < 8; shift += 2) if (((byte >>> shift) & 3) === CODE_MISSING) table[byte]++;
  }
  return table;
})();

/**
 * The whole 32-bit words of `bytes` where its view starts word-aligned, else none (the callers then go byte by byte):
 * a Uint32Array may not start at an unaligned offset, even an empty one.
 */
function alignedWordsOf(bytes: Uint8Array): Uint32Array {
  if (bytes.byteOffset % 4 !== 0) return new Uint32Array(0);
  return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
}

/** Number of missing codes in a packed vector (pad bits must be zero, as they are in packed files). */
export function countMissingCodes(packedVector: Uint8Array): number {
  // 16 codes per word where the bytes are word-aligned: code 10 is bit 2k + 1 set and bit 2k clear.
  const words = alignedWordsOf(packedVector);
  const numWords = words.length;
  let count = 0;
  for (let w = 0; w < numWords; w++) {
    const codes = words[w];
    const missing = (codes >>> 1) & ~codes & 0x55555555;
    if (missing !== 0) count += popcount32(missing);
  }
  for (let b = 4 * numWords; b < packedVector.length; b++) count += MISSING_CODES_IN_BYTE[packedVector[b]];
  return count;
}

/**
 * Converts one SNP's .bed record (ceil(numSample/4) bytes) into `out` in place of SPEC codes, with the
 * bits past the last sample cleared (PLINK pads with `00`, which would otherwise read as hom A1).
 */
export function convertBedRecord(bedRecord: Uint8Array, numSample: number, out: Uint8Array): void {
  const numBytes = packedBytesPerVector(numSample);
  // A copy, then the NOT of 4 bytes at a time where `out` is word-aligned (bedByteToPacked of each byte).
  out.set(bedRecord.subarray(0, numBytes));
  const words = alignedWordsOf(out.subarray(0, numBytes));
  const numWords = words.length;
  for (let w = 0; w < numWords; w++) words[w] = ~words[w];
  for (let b = 4 * numWords; b < numBytes; b++) out[b] = bedByteToPacked(out[b]);
  const samplesInLastByte = numSample - 4 * (numBytes - 1);
  out[numBytes - 1] &= (1 << (2 * samplesInLastByte)) - 1;
}

/**
 * Converts consecutive .bed records (ceil(numSample/4) bytes each, as a .bed lays them out) in place into SPEC codes,
 * the bits past each record's last sample cleared (convertBedRecord of every record), and returns their missing codes
 * (countMissingCodes of each): a word at a time over all of them, as the NOT does not care where records end.
 */
export function convertBedRecordsInPlace(records: Uint8Array, numSample: number): number {
  const numBytes = packedBytesPerVector(numSample);
  if (records.length % numBytes !== 0) throw new Error(`${records.length} bytes are not whole records of ${numBytes}`);
  const words = alignedWordsOf(records);
  const numWords = words.length;
  let missing = 0;
  for (let w = 0; w < numWords; w++) {
    const codes = ~words[w];
    words[w] = codes;
    // Code 10: bit 2k + 1 set and bit 2k clear.
    const missingBits = (codes >>> 1) & ~codes & 0x55555555;
    if (missingBits !== 0) missing += popcount32(missingBits);
  }
  for (let b = 4 * numWords; b < records.length; b++) {
    records[b] = bedByteToPacked(records[b]);
    missing += MISSING_CODES_IN_BYTE[records[b]];
  }
  const samplesInLastByte = numSample - 4 * (numBytes - 1);
  if (samplesInLastByte === 4) return missing;
  const lastByteMask = (1 << (2 * samplesInLastByte)) - 1;
  for (let last = numBytes - 1; last < records.length; last += numBytes) {
    // The pad codes were counted above; they are not calls.
    missing -= MISSING_CODES_IN_BYTE[records[last] & ~lastByteMask & 0xff];
    records[last] &= lastByteMask;
  }
  return missing;
}
