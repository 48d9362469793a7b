// Validation of a PopcountGemmRequest, shared by every kernel set so that all reject the same inputs.

import { WORDS_PER_PLANE_ALIGN, type PlaneMatrix, type PopcountGemmRequest } from './contract.js';
import { checkPlane, checkRowRange } from './planeMatrix.js';

/** Throws a RangeError describing the first way `request` breaks the contract of contract.ts. */
export function checkPopcountGemmRequest(request: PopcountGemmRequest): void {
  const { a, b } = request;
  checkMatrixShape('a', a);
  checkMatrixShape('b', b);
  if (a.wordsPerPlane !== b.wordsPerPlane) throw new RangeError(`wordsPerPlane differ: a ${a.wordsPerPlane}, b ${b.wordsPerPlane}`);
  checkRowRange('a', a, request.aFirst, request.aCount);
  checkRowRange('b', b, request.bFirst, request.bCount);
  for (const group of request.termGroups) {
    for (const [aPlane, bPlane] of group) {
      checkPlane('a', a, aPlane);
      checkPlane('b', b, bPlane);
    }
  }
}

/** Throws unless the words array matches the declared shape and plane padding. */
function checkMatrixShape(name: string, matrix: PlaneMatrix): void {
  if (matrix.wordsPerPlane % WORDS_PER_PLANE_ALIGN !== 0) {
    throw new RangeError(`${name}: wordsPerPlane ${matrix.wordsPerPlane} is not a multiple of ${WORDS_PER_PLANE_ALIGN}`);
  }
  const numWords = matrix.numVectors * matrix.numPlanes * matrix.wordsPerPlane;
  if (matrix.words.length < numWords) throw new RangeError(`${name}: ${matrix.words.length} words, shape needs ${numWords}`);
}
