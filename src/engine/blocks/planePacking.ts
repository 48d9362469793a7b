// Packed 2-bit rows (SPEC §1: 4 fields per byte, LSB first) → one vector row of bit planes.
//
// Only type imports: the block worker threads load this file, and it must stay cheap to load.
import type { PlaneLayout } from '../../analyses/index.js';
import type { PlaneWordRange } from '../../mgemm/index.js';

/** Entries per plane of a PlanePackingTable: every value of two packed bytes (8 fields). */
const PAIR_VALUES = 1 << 16;

/**
 * `table[p·65536 + pair]`: bit k is plane p's bit (the code's `bitsOfCode`) of field k of the 8 fields in
 * `pair` (two packed bytes, the first in the low 8 bits). Built once per layout and thread, 64 KB per plane.
 */
export function planePackingTable(layout: PlaneLayout): Uint8Array {
  const numPlanes = layout.numPlanes;
  const nibbleOf = new Uint8Array(numPlanes * 256);
  for (let byte = 0; byte < 256; byte++) {
    for (let k = 0; k < 4; k++) {
      const bits = layout.bitsOfCode[(byte >> (2 * k)) & 3];
      for (let p = 0; p < numPlanes; p++) nibbleOf[p * 256 + byte] |= ((bits >> p) & 1) << k;
    }
  }
  // A plane's 256 entries of one high byte are its low bytes' nibbles under the high byte's nibble: 16 such rows, each
  // copied where its nibble occurs (a table is built on every thread that packs planes, on its critical path; 65,536
  // stores a plane in cold code cost several ms).
  const table = new Uint8Array(numPlanes * PAIR_VALUES);
  const rowOfHighNibble = new Uint8Array(16 * 256);
  for (let p = 0; p < numPlanes; p++) {
    const lowNibbles = nibbleOf.subarray(p * 256, (p + 1) * 256);
    for (let high = 0; high < 16; high++) {
      for (let byte = 0; byte < 256; byte++) rowOfHighNibble[high * 256 + byte] = lowNibbles[byte] | (high << 4);
    }
    for (let highByte = 0; highByte < 256; highByte++) {
      const row = lowNibbles[highByte] * 256;
      table.set(rowOfHighNibble.subarray(row, row + 256), p * PAIR_VALUES + highByte * 256);
    }
  }
  return table;
}

/** Where one vector row goes: `numPlanes` planes of `wordsPerPlane` words from `words[rowBase]`. */
export interface PlaneRowTarget {
  readonly words: Uint32Array;
  readonly rowBase: number;
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  /**
   * Present when planes are wanted only within word ranges (planeWordSegments of slabPlaneWordRanges): whole words
   * outside them are not written (maskPlaneFieldRanges clears them after), which saves their table lookups.
   */
  readonly segments?: readonly PlaneWordSegment[];
}

/** Words [first, end) of a row in which exactly `planes` are wanted. */
export interface PlaneWordSegment {
  readonly first: number;
  readonly end: number;
  readonly planes: readonly number[];
}

/**
 * The words of a row cut where a plane's range starts or ends, each piece with the planes whose range holds it (pieces
 * with none are left out): epistasis's six class planes give two pieces of three planes (and a shared boundary word).
 */
export function planeWordSegments(ranges: readonly (PlaneWordRange | null)[], numPlanes: number, wordsPerPlane: number): PlaneWordSegment[] {
  const rangeOf = (p: number): PlaneWordRange => ranges[p] ?? [0, wordsPerPlane];
  const cuts = [...new Set([0, wordsPerPlane, ...Array.from({ length: numPlanes }, (_, p) => rangeOf(p)).flat()])].sort((x, y) => x - y);
  const segments: PlaneWordSegment[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [first, end] = [cuts[k], cuts[k + 1]];
    const planes = Array.from({ length: numPlanes }, (_, p) => p).filter((p) => rangeOf(p)[0] <= first && end <= rangeOf(p)[1]);
    if (planes.length > 0 && end > first) segments.push({ first, end, planes });
  }
  return segments;
}

/**
 * Writes the planes of one row of `numField` fields from the packed bytes `packed[src …]`
 * (`ceil(numField/4)` bytes), 32 fields (8 bytes) per plane word, one `table` lookup per byte pair and plane.
 * Fields past `numField` are cleared in every plane (garbage in the last byte's unused bits is ignored);
 * the words past `ceil(numField/32)` (alignment padding) are left as they are (zero in a fresh matrix).
 */
export function packRowPlanes(table: Uint8Array, packed: Uint8Array, src: number, numField: number, target: PlaneRowTarget): void {
  const bytesPerVector = Math.ceil(numField / 4);
  const numWordsUsed = Math.ceil(numField / 32);
  const tailFields = numField % 32;
  const tailMask = tailFields === 0 ? 0xffffffff : (1 << tailFields) - 1;
  const { words, rowBase, numPlanes, wordsPerPlane } = target;
  const numFullWords = Math.floor(bytesPerVector / 8);
  if (target.segments !== undefined) {
    for (const segment of target.segments) packFullWords(table, packed, src, target, segment, Math.min(segment.end, numFullWords));
  } else {
    for (let w = 0, b = src; w < numFullWords; w++, b += 8) {
      // 8 bytes = 4 pairs of 8 fields; unaligned byte reads, as rows of a file start anywhere.
      const pair0 = packed[b] | (packed[b + 1] << 8);
      const pair1 = packed[b + 2] | (packed[b + 3] << 8);
      const pair2 = packed[b + 4] | (packed[b + 5] << 8);
      const pair3 = packed[b + 6] | (packed[b + 7] << 8);
      for (let p = 0, t = 0; p < numPlanes; p++, t += PAIR_VALUES) {
        words[rowBase + p * wordsPerPlane + w] = table[t + pair0] | (table[t + pair1] << 8) | (table[t + pair2] << 16) | (table[t + pair3] << 24);
      }
    }
  }
  if (numFullWords < numWordsUsed) {
    // The last word has fewer than 8 bytes: a byte at a time, zero-extended to a pair.
    const byteFirst = src + 8 * numFullWords;
    const byteEnd = src + bytesPerVector;
    for (let p = 0, t = 0; p < numPlanes; p++, t += PAIR_VALUES) {
      let word = 0;
      for (let b = byteFirst; b < byteEnd; b++) word |= (table[t + packed[b]] & 0xf) << (4 * (b - byteFirst));
      words[rowBase + p * wordsPerPlane + numFullWords] = word & tailMask;
    }
  } else if (tailFields !== 0) {
    for (let p = 0; p < numPlanes; p++) words[rowBase + p * wordsPerPlane + numWordsUsed - 1] &= tailMask;
  }
}

/**
 * Words [segment.first, end) of the segment's planes of one row, each of 8 whole packed bytes, one table lookup per
 * byte pair and plane (packRowPlanes's loop over a segment's planes only; `end` the segment's cut to whole words).
 */
function packFullWords(table: Uint8Array, packed: Uint8Array, src: number, target: PlaneRowTarget, segment: PlaneWordSegment, end: number): void {
  const { words, rowBase, wordsPerPlane } = target;
  const { first, planes } = segment;
  for (let w = first, b = src + 8 * first; w < end; w++, b += 8) {
    const pair0 = packed[b] | (packed[b + 1] << 8);
    const pair1 = packed[b + 2] | (packed[b + 3] << 8);
    const pair2 = packed[b + 4] | (packed[b + 5] << 8);
    const pair3 = packed[b + 6] | (packed[b + 7] << 8);
    for (let k = 0; k < planes.length; k++) {
      const p = planes[k];
      const t = p * PAIR_VALUES;
      words[rowBase + p * wordsPerPlane + w] = table[t + pair0] | (table[t + pair1] << 8) | (table[t + pair2] << 16) | (table[t + pair3] << 24);
    }
  }
}

/**
 * Clears the bits of rows `[rowFirst, rowEnd)` outside each plane's global field range (PlaneLayout.planeFieldRanges):
 * the slab holds global fields `[fieldFirst, fieldFirst + numFieldLocal)`, field f of the slab in bit f mod 32 of word
 * f / 32 of each plane. Nothing to do for a layout without ranges.
 */
export function maskPlaneFieldRanges(
  layout: PlaneLayout, fieldFirst: number, numFieldLocal: number, target: Omit<PlaneRowTarget, 'rowBase'>, rowFirst: number, rowEnd: number,
): void {
  const ranges = layout.planeFieldRanges ?? null;
  if (ranges === null) return;
  const { words, numPlanes, wordsPerPlane } = target;
  const numWordsUsed = Math.ceil(numFieldLocal / 32);
  // Per plane, once: the words its range keeps whole [keepFirst, keepEnd), and the masks of the words it cuts.
  const planes: { readonly p: number; readonly keepFirst: number; readonly keepEnd: number; readonly cutWords: number[]; readonly cutMasks: number[] }[] = [];
  for (let p = 0; p < numPlanes; p++) {
    const range = ranges[p] ?? null;
    if (range === null) continue;
    const first = Math.max(0, Math.min(numFieldLocal, range.first - fieldFirst));
    const end = Math.max(first, Math.min(numFieldLocal, range.end - fieldFirst));
    const wordFirst = Math.min(numWordsUsed, Math.floor(first / 32));
    const wordEnd = end > first ? Math.max(wordFirst, Math.min(numWordsUsed, Math.ceil(end / 32))) : wordFirst;
    const cutWords: number[] = [];
    const cutMasks: number[] = [];
    for (const w of end > first ? [...new Set([wordFirst, wordEnd - 1])] : []) {
      const lo = Math.max(first, 32 * w) - 32 * w;
      const hi = Math.min(end, 32 * w + 32) - 32 * w;
      if (hi - lo < 32) {
        cutWords.push(w);
        cutMasks.push(((hi === 32 ? 0xffffffff : (1 << hi) - 1) & ~((1 << lo) - 1)) >>> 0);
      }
    }
    planes.push({ p, keepFirst: wordFirst, keepEnd: wordEnd, cutWords, cutMasks });
  }
  // Plain loops: the words cleared per row are few, where fill's call on shared memory cost more than the stores.
  for (let r = rowFirst; r < rowEnd; r++) {
    for (const { p, keepFirst, keepEnd, cutWords, cutMasks } of planes) {
      const base = (r * numPlanes + p) * wordsPerPlane;
      for (let w = 0; w < keepFirst; w++) words[base + w] = 0;
      for (let w = keepEnd; w < numWordsUsed; w++) words[base + w] = 0;
      for (let k = 0; k < cutWords.length; k++) words[base + cutWords[k]] &= cutMasks[k];
    }
  }
}

/**
 * The PlaneMatrix.planeWordRanges of a slab's planes (global fields `[fieldFirst, fieldFirst + numFieldLocal)`) built
 * from 2-bit codes: per plane the slab's words of its field range, outside which maskPlaneFieldRanges leaves no bit
 * (an empty range where the slab holds none of it); null without ranges, or for planes of real values (not masked).
 */
export function slabPlaneWordRanges(layout: PlaneLayout, fieldFirst: number, numFieldLocal: number): (PlaneWordRange | null)[] | null {
  const ranges = layout.planeFieldRanges ?? null;
  if (ranges === null || (layout.realValues ?? null) !== null) return null;
  return ranges.map((range) => {
    if (range === null) return null;
    const first = Math.max(0, Math.min(numFieldLocal, range.first - fieldFirst));
    const end = Math.max(first, Math.min(numFieldLocal, range.end - fieldFirst));
    return [Math.floor(first / 32), end === first ? Math.floor(first / 32) : Math.ceil(end / 32)] as const;
  });
}

/**
 * The popcount GEMM's planeWordRanges (mgemm/contract.ts) of a layout whose planes hold every field (no field slabs):
 * per plane the words of its field range, which maskPlaneFieldRanges leaves as the only nonzero ones; null without
 * ranges.
 */
export function planeWordRangesOf(layout: PlaneLayout): (PlaneWordRange | null)[] | null {
  const ranges = layout.planeFieldRanges ?? null;
  if (ranges === null) return null;
  return ranges.map((range) => (range === null ? null : [Math.floor(range.first / 32), Math.max(Math.floor(range.first / 32), Math.ceil(range.end / 32))] as const));
}
