// Program factory: the pair-product planes of j-slices, built on the GPU from resident planes into the rows of a
// stack (sliceStacks.ts). One dispatch covers consecutive parts of a stack whose x rows lie in one resident chunk
// and whose j's in another; part p (a vec4 of the `parts` table: its first stack row, its first x row and its y row,
// both within their chunks) gives stack row s, plane q = `X[xRow + s − stackRowFirst][pairs[q][0]] AND
// Y[yRow][pairs[q][1]]`, in the contract's PlaneMatrix layout (row, then plane, then words), so the 2-way programs
// (tally2, expand) read the stack as their A operand.
//
// Assumptions: X, Y and the output are bound as vec4<u32> (wordsPerPlane is a multiple of 4); bits past
// the last field are zero in X and Y, hence in the products. One thread writes one vec4 and finds its part by
// binary search of the parts' first rows; the 1-D grid is folded into x and y (numWorkgroupsX per row) to stay
// within the dispatch limit.

import type { PlanePair } from '../../../contract.js';
import { lastAtMostWgsl } from './wgsl/lastAtMost.js';
import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup of the pair-product program. */
export const PAIR_PRODUCT_WORKGROUP = 256;

/** Words of one part in the `parts` table: first stack row, first x row, y row, padding. */
export const PAIR_PRODUCT_PART_WORDS = 4;

export function createPairProductProgram(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram {
  if (pairs.length === 0) throw new RangeError('a pair-product program needs at least one plane pair');
  const constArray = (values: readonly number[]): string => `array<u32, ${values.length}>(${values.map((v) => `${v}u`).join(', ')})`;
  return {
    cacheKey: `pairProduct:${numPlanesX}:${numPlanesY}:${pairs.map(([p, q]) => `${p}.${q}`).join('+')}`,
    workgroupSize: [PAIR_PRODUCT_WORKGROUP, 1],
    storage: [
      { name: 'X', access: 'read', elementType: 'vec4<u32>' },
      { name: 'Y', access: 'read', elementType: 'vec4<u32>' },
      { name: 'P', access: 'read_write', elementType: 'vec4<u32>' },
      { name: 'parts', access: 'read', elementType: 'vec4<u32>' },
    ],
    uniforms: [
      // The dispatch's parts in the table, and the stack rows they cover.
      { name: 'partsFirst', type: 'u32' }, { name: 'numParts', type: 'u32' }, { name: 'rowFirst', type: 'u32' }, { name: 'numRows', type: 'u32' },
      { name: 'vec4PerPlane', type: 'u32' }, { name: 'numWorkgroupsX', type: 'u32' },
    ],
    extensions: [],
    declarations: [
      `const NUM_PAIRS = ${pairs.length}u;`, `const PX = ${numPlanesX}u;`, `const PY = ${numPlanesY}u;`,
      `const X_PLANES = ${constArray(pairs.map(([p]) => p))};`, `const Y_PLANES = ${constArray(pairs.map(([, q]) => q))};`,
      '/** The part holding a stack row: the last whose first row is at most it. */',
      lastAtMostWgsl('partOfRow', 'u.numParts', (i) => `parts[u.partsFirst + ${i}].x`),
    ].join('\n'),
    mainBody: `  let id = (wg.y * u.numWorkgroupsX + wg.x) * ${PAIR_PRODUCT_WORKGROUP}u + li;
  let vecsPerRow = NUM_PAIRS * u.vec4PerPlane;
  if (id >= u.numRows * vecsPerRow) { return; }
  let row = u.rowFirst + id / vecsPerRow;
  let part = parts[u.partsFirst + partOfRow(row)];
  let xRow = part.y + (row - part.x);
  let inRow = id % vecsPerRow;
  let q = inRow / u.vec4PerPlane;
  let v = inRow % u.vec4PerPlane;
  P[row * vecsPerRow + inRow] = X[(xRow * PX + X_PLANES[q]) * u.vec4PerPlane + v] & Y[(part.z * PY + Y_PLANES[q]) * u.vec4PerPlane + v];`,
  };
}
