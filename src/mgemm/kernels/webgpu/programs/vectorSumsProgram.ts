// Program factory: per-vector sums from resident planes (contract.ts VectorSumsRequest). One workgroup per
// row: its threads popcount strided vec4 words of the row's count planes and of its mask plane, then halve
// the partial sums in workgroup memory. out[2·(outRowFirst + row)] = Σ c1, out[… + 1] = present fields.
//
// Assumptions: planes are bound as vec4<u32> (wordsPerPlane is a multiple of 4); a row's sums fit a u32
// (checkVectorSumsRequest); the 1-D grid of rows is folded into x and y to stay within the dispatch limit.

import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup (one workgroup per row; a power of two for the halving reduction). */
export const VECTOR_SUMS_WORKGROUP = 128;

export function createVectorSumsProgram(numPlanes: number, countPlanes: readonly number[], maskPlane: number | null): WgslProgram {
  const popcountLoop = (target: string, plane: number): string => `    for (var v = li; v < u.vec4PerPlane; v += WG) {
      let x = P[(row * NUM_PLANES + ${plane}u) * u.vec4PerPlane + v];
      ${target} += countOneBits(x.x) + countOneBits(x.y) + countOneBits(x.z) + countOneBits(x.w);
    }`;
  const loops = [...countPlanes.map((p) => popcountLoop('s', p)), ...(maskPlane === null ? [] : [popcountLoop('c', maskPlane)])];
  return {
    cacheKey: `vectorSums:${numPlanes}:${countPlanes.join('.')}:${maskPlane ?? '-'}`,
    workgroupSize: [VECTOR_SUMS_WORKGROUP, 1],
    storage: [
      { name: 'P', access: 'read', elementType: 'vec4<u32>' },
      { name: 'out', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [
      { name: 'numRows', type: 'u32' }, { name: 'outRowFirst', type: 'u32' }, { name: 'vec4PerPlane', type: 'u32' },
      { name: 'numWorkgroupsX', type: 'u32' },
    ],
    extensions: [],
    declarations: [
      `const WG = ${VECTOR_SUMS_WORKGROUP}u;`, `const NUM_PLANES = ${numPlanes}u;`,
      'var<workgroup> partSum: array<u32, WG>;', 'var<workgroup> partCount: array<u32, WG>;',
    ].join('\n'),
    // `row` depends on the workgroup only, so the early return keeps the barriers in uniform control flow.
    mainBody: `  let row = wg.y * u.numWorkgroupsX + wg.x;
  if (row >= u.numRows) { return; }
  var s = 0u;
  var c = 0u;
${loops.join('\n')}
  partSum[li] = s;
  partCount[li] = c;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half = half / 2u) {
    if (li < half) {
      partSum[li] += partSum[li + half];
      partCount[li] += partCount[li + half];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    out[2u * (u.outRowFirst + row)] = partSum[0];
    out[2u * (u.outRowFirst + row) + 1u] = partCount[0];
  }`,
  };
}
