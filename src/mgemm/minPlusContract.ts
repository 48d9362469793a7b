// The real-valued operand and the min-plus modified GEMM (SPEC §8, Czekanowski), beside the popcount contract.
//
// A real-valued block travels through the engine as a PlaneMatrix whose "planes" are the bits of its values: a
// vector's row holds `numPlanes·wordsPerPlane` words, and with `numPlanes` = the bits of a value (64 double, 32
// single) the row has room for `32·wordsPerPlane ≥ numField` values, stored from the row's first word on
// (element f of row r at value index `r·32·wordsPerPlane + f`), zeros past the last field. So blocks are built,
// exchanged and sized as every other block. A min-plus kernel set implements PopcountGemm over such matrices:
//
//   run:  sum[r][c] = Σ_f min(a[r][f], b[c][f])                                      (2-way numerators)
//   run3: sum[s][r][c] = Σ_f ((min(a,b) + min(a,c)) + min(b,c)) − min(a,b,c)          (3-way, y = row yRow of slice s)
//         with (a, b, c) the x, y, z values in the global order of their vectors (request.blockIndices): CoMet's order
//   vectorSums: sums[r] = Σ_f a[r][f]
//
// every sum added one field after another in field order, every operation in the run's precision: the same bits
// whatever the kernel, blocking, thread count or decomposition. Term groups and plane pairs are not read. The sums
// come back as words so that the engine carries them as it carries tallies (row slices, shared memory): output
// group w holds word w of every sum, i.e. a double's low then high 32 bits (two groups), a float's bits (one group).
import type { PlaneMatrix } from './contract.js';

/** The float type of real-valued operands (core/realProblems.ts RealPrecision). */
export type ValuePrecision = 'double' | 'single';

/** Planes (bits) per value of a precision: a real-valued PlaneMatrix's numPlanes. */
export function valueBits(precision: ValuePrecision): 64 | 32 {
  return precision === 'double' ? 64 : 32;
}

/** Output groups (32-bit words per sum) of a min-plus request. */
export function sumWordsOf(precision: ValuePrecision): 1 | 2 {
  return precision === 'double' ? 2 : 1;
}

/** What a min-plus kernel set needs to know besides its requests. */
export interface RealOperands {
  readonly precision: ValuePrecision;
  /** Fields of the matrices' rows (the slab's); values past them are zero. */
  readonly numField: number;
}

/** The values of a real-valued matrix: row r starts at `r·rowStride`. */
export interface RealValues {
  readonly values: Float64Array | Float32Array;
  readonly rowStride: number;
}

/** The value view of a real-valued PlaneMatrix (see the header). */
export function realValuesOf(matrix: PlaneMatrix, precision: ValuePrecision): RealValues {
  if (matrix.numPlanes !== valueBits(precision)) {
    throw new Error(`a ${precision} real-valued matrix has ${valueBits(precision)} planes, not ${matrix.numPlanes}`);
  }
  const { buffer, byteOffset, length } = matrix.words;
  const values = precision === 'double' ? new Float64Array(buffer, byteOffset, length / 2) : new Float32Array(buffer, byteOffset, length);
  return { values, rowStride: 32 * matrix.wordsPerPlane };
}

/** The output groups of sums (see the header): views of `sums`' words, no copy for single precision. */
export function sumWordGroups(sums: Float64Array | Float32Array): Uint32Array[] {
  if (sums instanceof Float32Array) return [new Uint32Array(sums.buffer, sums.byteOffset, sums.length)];
  const words = new Uint32Array(sums.buffer, sums.byteOffset, 2 * sums.length);
  const low = new Uint32Array(new SharedArrayBuffer(4 * sums.length));
  const high = new Uint32Array(new SharedArrayBuffer(4 * sums.length));
  for (let e = 0; e < sums.length; e++) {
    low[e] = words[2 * e];
    high[e] = words[2 * e + 1];
  }
  return [low, high];
}

/** Sum `e` of output groups `groups` (the inverse of sumWordGroups, one sum at a time). */
export function sumOfWords(groups: readonly Uint32Array[], e: number, scratch: SumScratch): number {
  if (groups.length === 1) {
    scratch.words[0] = groups[0][e];
    return scratch.single[0];
  }
  scratch.words[0] = groups[0][e];
  scratch.words[1] = groups[1][e];
  return scratch.double[0];
}

/** Scratch words for sumOfWords (one per caller, reused). */
export class SumScratch {
  readonly words = new Uint32Array(2);
  readonly double = new Float64Array(this.words.buffer);
  readonly single = new Float32Array(this.words.buffer);
}

/** Which of min(x,y), min(x,z), min(y,z) (0, 1, 2) is SPEC §8's min(a,b), min(a,c), min(b,c): (a, b, c) in global order. */
export type PairMinOrder = readonly [ab: number, ac: number, bc: number];

/** The PairMinOrder of x, y, z from their block indices (ties: x before y before z). */
export function pairMinOrder(blockIndices: readonly [number, number, number] | undefined): PairMinOrder {
  const roles = [0, 1, 2];
  if (blockIndices !== undefined) roles.sort((p, q) => blockIndices[p] - blockIndices[q] || p - q);
  // The min of roles p < q: xy = 0, xz = 1, yz = 2.
  const minOf = (p: number, q: number): number => Math.min(p, q) + Math.max(p, q) - 1;
  const [a, b, c] = roles;
  return [minOf(a, b), minOf(a, c), minOf(b, c)];
}
