// Packed 2-bit rows (SPEC §1: 4 fields per byte, LSB first) → one vector row of bit planes, and its sums.
//
// Only type imports: the block worker threads load this file, and it must stay cheap to load.
import type { PlaneLayout } from './tallyLayout.js';

/**
 * `nibbleOf[p·256 + byte]`: bit k is plane p's bit of the byte's field k (the code's `bitsOfCode`).
 * Built once per layout, 256 bytes per plane.
 */
export function planeNibbleTable(layout: PlaneLayout): Uint8Array {
  const numPlanes = layout.numPlanes;
  const nibbleOf = new Uint8Array(numPlanes * 256);
  for (let byte = 0; byte < 256; byte++) {
    for (let k = 0; k < 4; k++) {
      const bits = layout.bitsOfCode[(byte >> (2 * k)) & 3];
      for (let p = 0; p < numPlanes; p++) nibbleOf[p * 256 + byte] |= ((bits >> p) & 1) << k;
    }
  }
  return nibbleOf;
}

/** Where one vector row goes: `numPlanes` planes of `wordsPerPlane` words from `words[rowBase]`. */
export interface PlaneRowTarget {
  readonly words: Uint32Array;
  readonly rowBase: number;
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
}

/**
 * Writes the planes of one row of `numField` fields from the packed bytes `packed[src …]`
 * (`ceil(numField/4)` bytes), 32 fields (8 bytes) per plane word, a table lookup per byte and plane.
 * Fields past `numField` are cleared in every plane (garbage in the last byte's unused bits is ignored);
 * the words past `ceil(numField/32)` (alignment padding) are left as they are (zero in a fresh matrix).
 */
export function packRowPlanes(nibbleOf: Uint8Array, packed: Uint8Array, src: number, numField: number, target: PlaneRowTarget): void {
  const bytesPerVector = Math.ceil(numField / 4);
  const numWordsUsed = Math.ceil(numField / 32);
  const tailFields = numField % 32;
  const tailMask = tailFields === 0 ? 0xffffffff : (1 << tailFields) - 1;
  const { words, rowBase, numPlanes, wordsPerPlane } = target;
  for (let w = 0; w < numWordsUsed; w++) {
    const byteFirst = src + 8 * w;
    const byteEnd = src + Math.min(8 * w + 8, bytesPerVector);
    const mask = w === numWordsUsed - 1 ? tailMask : 0xffffffff;
    if (byteEnd - byteFirst === 8) {
      // The common case, unrolled: 8 bytes of 4 fields each.
      const b0 = packed[byteFirst], b1 = packed[byteFirst + 1], b2 = packed[byteFirst + 2], b3 = packed[byteFirst + 3];
      const b4 = packed[byteFirst + 4], b5 = packed[byteFirst + 5], b6 = packed[byteFirst + 6], b7 = packed[byteFirst + 7];
      for (let p = 0, t = 0; p < numPlanes; p++, t += 256) {
        const word = nibbleOf[t + b0] | (nibbleOf[t + b1] << 4) | (nibbleOf[t + b2] << 8) | (nibbleOf[t + b3] << 12)
          | (nibbleOf[t + b4] << 16) | (nibbleOf[t + b5] << 20) | (nibbleOf[t + b6] << 24) | (nibbleOf[t + b7] << 28);
        words[rowBase + p * wordsPerPlane + w] = word & mask;
      }
      continue;
    }
    for (let p = 0, t = 0; p < numPlanes; p++, t += 256) {
      let word = 0;
      for (let b = byteFirst; b < byteEnd; b++) word |= nibbleOf[t + packed[b]] << (4 * (b - byteFirst));
      words[rowBase + p * wordsPerPlane + w] = word & mask;
    }
  }
}

/** Σ c1 of one row (popcount of its count planes) and its present fields (popcount of the mask plane, 0 if none). */
export function rowSums(layout: PlaneLayout, target: PlaneRowTarget): { sum: number; count: number } {
  const { words, rowBase, wordsPerPlane } = target;
  let sum = 0;
  for (const p of layout.countPlanes) sum += popcountRange(words, rowBase + p * wordsPerPlane, wordsPerPlane);
  const count = layout.maskPlane === null ? 0 : popcountRange(words, rowBase + layout.maskPlane * wordsPerPlane, wordsPerPlane);
  return { sum, count };
}

function popcountRange(words: Uint32Array, first: number, count: number): number {
  let total = 0;
  for (let w = first; w < first + count; w++) {
    let x = words[w];
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    total += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return total;
}
