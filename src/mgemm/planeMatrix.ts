// Allocating, sharing and combining PlaneMatrix operands (the bit-plane layout of contract.ts).

import { WORDS_PER_PLANE_ALIGN, type PlaneMatrix, type PlanePair } from './contract.js';

/** 32-bit words per plane for `numField` fields, rounded up to WORDS_PER_PLANE_ALIGN. */
export function planeWordsFor(numField: number): number {
  if (!Number.isInteger(numField) || numField < 0) throw new RangeError(`numField must be a non-negative integer, got ${numField}`);
  const numWords = Math.ceil(numField / 32);
  return Math.ceil(numWords / WORDS_PER_PLANE_ALIGN) * WORDS_PER_PLANE_ALIGN;
}

/** A zeroed PlaneMatrix whose words live in a SharedArrayBuffer, ready for kernel worker threads. */
export function allocatePlaneMatrix(numVectors: number, numPlanes: number, numField: number): PlaneMatrix {
  const wordsPerPlane = planeWordsFor(numField);
  const words = new Uint32Array(new SharedArrayBuffer(numVectors * numPlanes * wordsPerPlane * 4));
  return { numVectors, numPlanes, wordsPerPlane, words };
}

/** `matrix` itself if its words are in a SharedArrayBuffer, else a copy whose words are. */
export function toSharedPlaneMatrix(matrix: PlaneMatrix): PlaneMatrix {
  if (matrix.words.buffer instanceof SharedArrayBuffer) return matrix;
  const words = new Uint32Array(new SharedArrayBuffer(matrix.words.byteLength));
  words.set(matrix.words);
  return { numVectors: matrix.numVectors, numPlanes: matrix.numPlanes, wordsPerPlane: matrix.wordsPerPlane, words, planeWordRanges: matrix.planeWordRanges };
}

/**
 * The A operand of a 3-way tally step: row r, plane q is
 * `x[xFirst + r][planePairs[q][0]] AND y[yRow][planePairs[q][1]]`, so that a 2-way popcount-GEMM of
 * this against z gives r_ijk terms popcount(x_i AND y_j AND z_k). Written into `into` (its first
 * xCount · pairs · wordsPerPlane words; a scratch array the caller reuses) or, without it, into new shared
 * memory like allocatePlaneMatrix.
 * The CPU kernel set's run3 builds these per row panel (kernels/wasm/tally3Task.ts); the webgpu kernel set
 * builds them on the GPU instead (kernels/webgpu/pairProductProgram.ts).
 */
export function pairProductPlanes(
  x: PlaneMatrix,
  xFirst: number,
  xCount: number,
  y: PlaneMatrix,
  yRow: number,
  planePairs: readonly PlanePair[],
  into?: Uint32Array,
): PlaneMatrix {
  if (x.wordsPerPlane !== y.wordsPerPlane) throw new RangeError(`wordsPerPlane differ: ${x.wordsPerPlane} vs ${y.wordsPerPlane}`);
  checkRowRange('x', x, xFirst, xCount);
  checkRowRange('y', y, yRow, 1);
  for (const [xPlane, yPlane] of planePairs) {
    checkPlane('x', x, xPlane);
    checkPlane('y', y, yPlane);
  }
  const wordsPerPlane = x.wordsPerPlane;
  const numPlanes = planePairs.length;
  const numWords = xCount * numPlanes * wordsPerPlane;
  if (into !== undefined && into.length < numWords) throw new RangeError(`into: ${into.length} words, the products need ${numWords}`);
  const words = into === undefined ? new Uint32Array(new SharedArrayBuffer(numWords * 4)) : into.subarray(0, numWords);
  const xWords = x.words;
  const yWords = y.words;
  let out = 0;
  for (let r = 0; r < xCount; r++) {
    for (let q = 0; q < numPlanes; q++) {
      let xAt = ((xFirst + r) * x.numPlanes + planePairs[q][0]) * wordsPerPlane;
      let yAt = (yRow * y.numPlanes + planePairs[q][1]) * wordsPerPlane;
      // wordsPerPlane is a multiple of WORDS_PER_PLANE_ALIGN (4): four words per step.
      for (const end = out + wordsPerPlane; out < end; out += 4, xAt += 4, yAt += 4) {
        words[out] = xWords[xAt] & yWords[yAt];
        words[out + 1] = xWords[xAt + 1] & yWords[yAt + 1];
        words[out + 2] = xWords[xAt + 2] & yWords[yAt + 2];
        words[out + 3] = xWords[xAt + 3] & yWords[yAt + 3];
      }
    }
  }
  return { numVectors: xCount, numPlanes, wordsPerPlane, words };
}

/** Throws unless rows [first, first + count) exist in `matrix`. */
export function checkRowRange(name: string, matrix: PlaneMatrix, first: number, count: number): void {
  if (!Number.isInteger(first) || !Number.isInteger(count) || first < 0 || count < 0 || first + count > matrix.numVectors) {
    throw new RangeError(`${name}: rows [${first}, ${first + count}) outside 0..${matrix.numVectors}`);
  }
}

/** Throws unless `plane` is a plane index of `matrix`. */
export function checkPlane(name: string, matrix: PlaneMatrix, plane: number): void {
  if (!Number.isInteger(plane) || plane < 0 || plane >= matrix.numPlanes) {
    throw new RangeError(`${name}: plane ${plane} outside 0..${matrix.numPlanes - 1}`);
  }
}
