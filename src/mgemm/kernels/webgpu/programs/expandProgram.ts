// Program factory: bit planes → u8 count operands for the integer-GEMM kernels. Output byte k of row r
// is Σ_{p ∈ planes} bit p of field 32·wordFirst + k (so a count c1 = H + L becomes one u8 in 0..2, SPEC §2 identities).
//
// Layout: rows of 32·numWords bytes, the K slab of words [wordFirst, +numWords) of each plane (u8Slabs.ts; fields past
// the planes' are zero bits, so zero bytes), packed 4 per u32 little-endian; rows [numRows, numRowsPad) are written
// as zeros (padding to the tile).

import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup of the expansion (a 1-D grid folded into x and y). */
export const EXPAND_WORKGROUP = 256;

export function createExpandProgram(numPlanes: number, planes: readonly number[]): WgslProgram {
  const perPlane = planes.map((p) => `      let bits${p} = (src[((u.rowFirst + row) * ${numPlanes}u + ${p}u) * u.wordsPerPlane + u.wordFirst + w] >> shift) & 0xfu;
      v += (bits${p} & 1u) | ((bits${p} & 2u) << 7u) | ((bits${p} & 4u) << 14u) | ((bits${p} & 8u) << 21u);`);
  return {
    cacheKey: `expand:${numPlanes}:${planes.join('.')}`,
    workgroupSize: [EXPAND_WORKGROUP, 1],
    storage: [
      { name: 'src', access: 'read', elementType: 'u32' },
      { name: 'dst', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [
      { name: 'rowFirst', type: 'u32' }, { name: 'numRows', type: 'u32' }, { name: 'numRowsPad', type: 'u32' },
      { name: 'wordsPerPlane', type: 'u32' }, { name: 'wordFirst', type: 'u32' }, { name: 'numWords', type: 'u32' },
      { name: 'numWorkgroupsX', type: 'u32' },
    ],
    extensions: [],
    declarations: '',
    mainBody: `  let id = (wg.y * u.numWorkgroupsX + wg.x) * ${EXPAND_WORKGROUP}u + li;
  let wordsPerRow = u.numWords * 8u;
  if (id >= u.numRowsPad * wordsPerRow) { return; }
  let row = id / wordsPerRow;
  let q = id % wordsPerRow;
  var v = 0u;
  if (row < u.numRows) {
      let w = q / 8u;
      let shift = (q % 8u) * 4u;
${perPlane.join('\n')}
  }
  dst[id] = v;`,
  };
}
