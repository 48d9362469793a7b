// Program factory: the pair-product planes of one j, built on the GPU from resident planes. Output row
// outRowFirst + r, plane q is `X[xRowFirst + r][pairs[q][0]] AND Y[yRow][pairs[q][1]]` (several slices' products
// lie one after another in one buffer: sliceStacks.ts), in the contract's PlaneMatrix
// layout (row, then plane, then words), so the 2-way programs (tally2, expand) read it as their A operand.
//
// Assumptions: X, Y and the output are bound as vec4<u32> (wordsPerPlane is a multiple of 4); bits past
// the last field are zero in X and Y, hence in the products. One thread writes one vec4; the 1-D grid is
// folded into x and y (numWorkgroupsX per row) to stay within the dispatch limit.

import type { PlanePair } from '../../contract.js';
import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup of the pair-product program. */
export const PAIR_PRODUCT_WORKGROUP = 256;

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
    ],
    uniforms: [
      { name: 'xRowFirst', type: 'u32' }, { name: 'numRows', type: 'u32' }, { name: 'yRow', type: 'u32' },
      { name: 'vec4PerPlane', type: 'u32' }, { name: 'numWorkgroupsX', type: 'u32' }, { name: 'outRowFirst', type: 'u32' },
    ],
    extensions: [],
    declarations: [
      `const NUM_PAIRS = ${pairs.length}u;`, `const PX = ${numPlanesX}u;`, `const PY = ${numPlanesY}u;`,
      `const X_PLANES = ${constArray(pairs.map(([p]) => p))};`, `const Y_PLANES = ${constArray(pairs.map(([, q]) => q))};`,
    ].join('\n'),
    mainBody: `  let id = (wg.y * u.numWorkgroupsX + wg.x) * ${PAIR_PRODUCT_WORKGROUP}u + li;
  let vecsPerRow = NUM_PAIRS * u.vec4PerPlane;
  if (id >= u.numRows * vecsPerRow) { return; }
  let row = id / vecsPerRow;
  let q = (id % vecsPerRow) / u.vec4PerPlane;
  let v = id % u.vec4PerPlane;
  P[u.outRowFirst * vecsPerRow + id] = X[((u.xRowFirst + row) * PX + X_PLANES[q]) * u.vec4PerPlane + v] & Y[(u.yRow * PY + Y_PLANES[q]) * u.vec4PerPlane + v];`,
  };
}
