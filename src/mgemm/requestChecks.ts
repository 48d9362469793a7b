// Validation of a PopcountGemmRequest, shared by every kernel set so that all reject the same inputs.

import {
  WORDS_PER_PLANE_ALIGN, type PlaneCodeRows, type PlaneMatrix, type PopcountGemm3Request, type PopcountGemmRequest,
  type VectorSumsRequest,
} from './contract.js';
import { checkPlane, checkRowRange } from './planeMatrix.js';

/** What a kernel set takes beyond plain planes. */
export interface AcceptedOperands {
  /** Matrices held as code rows (PlaneMatrix.codeRows). */
  readonly codeRows: boolean;
}

const PLAIN_PLANES: AcceptedOperands = { codeRows: false };

/** Throws a RangeError describing the first way `request` breaks the contract of contract.ts. */
export function checkPopcountGemmRequest(request: PopcountGemmRequest, accepted: AcceptedOperands = PLAIN_PLANES): void {
  const { a, b } = request;
  checkMatrixShape('a', a, accepted);
  checkMatrixShape('b', b, accepted);
  if (a.wordsPerPlane !== b.wordsPerPlane) throw new RangeError(`wordsPerPlane differ: a ${a.wordsPerPlane}, b ${b.wordsPerPlane}`);
  checkRowRange('a', a, request.aFirst, request.aCount);
  checkRowRange('b', b, request.bFirst, request.bCount);
  for (const group of request.termGroups) {
    for (const [aPlane, bPlane] of group) {
      checkPlane('a', a, aPlane);
      checkPlane('b', b, bPlane);
    }
  }
  for (const [p, range] of (request.planeWordRanges ?? []).entries()) {
    if (range === null) continue;
    const [first, end] = range;
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(end) || first < 0 || end < first || end > a.wordsPerPlane) {
      throw new RangeError(`planeWordRanges[${p}] = [${first}, ${end}) is not within the ${a.wordsPerPlane} words of a plane`);
    }
  }
}

/** Throws a RangeError describing the first way a 3-way `request` breaks the contract of contract.ts. */
export function checkPopcountGemm3Request(request: PopcountGemm3Request): void {
  const { x, y, z } = request;
  checkMatrixShape('x', x, PLAIN_PLANES);
  checkMatrixShape('y', y, PLAIN_PLANES);
  checkMatrixShape('z', z, PLAIN_PLANES);
  if (x.wordsPerPlane !== y.wordsPerPlane || x.wordsPerPlane !== z.wordsPerPlane) {
    throw new RangeError(`wordsPerPlane differ: x ${x.wordsPerPlane}, y ${y.wordsPerPlane}, z ${z.wordsPerPlane}`);
  }
  for (const [xPlane, yPlane] of request.planePairs) {
    checkPlane('x', x, xPlane);
    checkPlane('y', y, yPlane);
  }
  for (const group of request.termGroups) {
    for (const [pair, zPlane] of group) {
      if (!Number.isInteger(pair) || pair < 0 || pair >= request.planePairs.length) {
        throw new RangeError(`term pair ${pair} outside 0..${request.planePairs.length - 1}`);
      }
      checkPlane('z', z, zPlane);
    }
  }
  for (const slice of request.slices) {
    checkRowRange('y', y, slice.yRow, 1);
    checkRowRange('x', x, slice.xFirst, slice.xCount);
    checkRowRange('z', z, slice.zFirst, slice.zCount);
  }
}

/** Throws a RangeError describing the first way a per-vector sums `request` breaks the contract of contract.ts. */
export function checkVectorSumsRequest(request: VectorSumsRequest, accepted: AcceptedOperands = PLAIN_PLANES): void {
  checkMatrixShape('planes', request.planes, accepted);
  for (const p of request.countPlanes) checkPlane('planes', request.planes, p);
  if (request.maskPlane !== null) checkPlane('planes', request.planes, request.maskPlane);
  // Each sum must stay exact in a u32: at most 2 count planes' bits per field in every layout.
  const maxSum = request.countPlanes.length * request.planes.wordsPerPlane * 32;
  if (maxSum > 0xffffffff) throw new RangeError(`per-vector sums could reach ${maxSum}, past 2^32 - 1: too many fields in one slab`);
}

/** Throws unless the words array (or the code rows) matches the declared shape and plane padding. */
function checkMatrixShape(name: string, matrix: PlaneMatrix, accepted: AcceptedOperands): void {
  if (matrix.wordsPerPlane % WORDS_PER_PLANE_ALIGN !== 0) {
    throw new RangeError(`${name}: wordsPerPlane ${matrix.wordsPerPlane} is not a multiple of ${WORDS_PER_PLANE_ALIGN}`);
  }
  const codeRows = matrix.codeRows ?? null;
  if (codeRows !== null) {
    if (!accepted.codeRows) throw new RangeError(`${name}: planes held as code rows, which this kernel set does not build planes from`);
    checkCodeRows(name, matrix, codeRows);
    return;
  }
  const numWords = matrix.numVectors * matrix.numPlanes * matrix.wordsPerPlane;
  if (matrix.words.length < numWords) throw new RangeError(`${name}: ${matrix.words.length} words, shape needs ${numWords}`);
}

function checkCodeRows(name: string, matrix: PlaneMatrix, rows: PlaneCodeRows): void {
  const { bytes, bytesPerRow, numRowsReal, numField, bitsOfCode } = rows;
  if (!Number.isSafeInteger(numRowsReal) || numRowsReal < 0 || numRowsReal > matrix.numVectors) {
    throw new RangeError(`${name}: ${numRowsReal} code rows for ${matrix.numVectors} vectors`);
  }
  if (!Number.isSafeInteger(numField) || numField < 0 || numField > 32 * matrix.wordsPerPlane || bytesPerRow < Math.ceil(numField / 4)) {
    throw new RangeError(`${name}: code rows of ${bytesPerRow} bytes for ${numField} fields in planes of ${matrix.wordsPerPlane} words`);
  }
  if (bytes.length < numRowsReal * bytesPerRow) throw new RangeError(`${name}: ${bytes.length} code bytes, ${numRowsReal} rows need ${numRowsReal * bytesPerRow}`);
  if (bitsOfCode.length !== 4 || bitsOfCode.some((bits) => !Number.isInteger(bits) || bits < 0 || bits >= 2 ** matrix.numPlanes)) {
    throw new RangeError(`${name}: bitsOfCode [${bitsOfCode.join(', ')}] is not one value below 2^${matrix.numPlanes} per code`);
  }
}
