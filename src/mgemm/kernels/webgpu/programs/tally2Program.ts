// Program factory of the portable bitwise kernel: out[g][r][c] = Σ_(pa,pb)∈group g Σ_w popcount(A[r][pa][w] & B[c][pb][w]).
//
// Assumptions: A and B are PlaneMatrix words (vector-major, then plane, then words) bound as vec4<u32>
// (wordsPerPlane is a multiple of 4); bits past the last field are zero. Rows past aCount / bCount
// read as zero and are not written. Each workgroup stages KT words of every used plane of its
// TM rows and TN columns in workgroup memory, then each thread accumulates a rowsPerThread ×
// colsPerThread block for every group (rows lid.y + i·threadsY, columns lid.x + j·threadsX, so
// neighbouring threads read neighbouring words: no bank conflicts, coalesced stores).

import type { TermGroup } from '../../../contract.js';
import type { Tally2Geometry } from '../plan/tally2Geometry.js';
import type { WgslProgram } from './wgslProgram.js';

export interface Tally2ProgramSpec {
  readonly termGroups: readonly TermGroup[];
  /**
   * Per group, whether its products never share a bit (plan/disjointGroups.ts): then one popcount of their OR counts
   * them all. Absent: none.
   */
  readonly disjointGroups?: readonly boolean[];
  readonly numPlanesA: number;
  readonly numPlanesB: number;
  readonly geometry: Tally2Geometry;
}

/** A tally program plus what its runner needs: output tile sizes and the planes it reads. */
export interface Tally2Program extends WgslProgram {
  readonly tileRows: number;
  readonly tileCols: number;
}

/** Distinct planes used on one side, in first-use order. */
function usedPlanes(groups: readonly TermGroup[], side: 0 | 1): number[] {
  const planes: number[] = [];
  for (const group of groups) for (const term of group) if (!planes.includes(term[side])) planes.push(term[side]);
  return planes;
}

/** Uniforms: row offsets inside the bound chunks, counts, plane length, and the strict-upper skip. */
const TALLY2_UNIFORMS = [
  { name: 'aRowFirst', type: 'u32' },
  { name: 'aCount', type: 'u32' },
  { name: 'bRowFirst', type: 'u32' },
  { name: 'bCount', type: 'u32' },
  { name: 'vec4PerPlane', type: 'u32' },
  { name: 'skipBelowDiagonal', type: 'u32' },
  /** Global index of output row 0 minus global index of output column 0 (same matrix when skipping). */
  { name: 'diagonalOffset', type: 'i32' },
] as const;

export function createTally2Program(spec: Tally2ProgramSpec): Tally2Program {
  const { termGroups, numPlanesA, numPlanesB, geometry: geo } = spec;
  const disjoint = termGroups.map((_g, g) => spec.disjointGroups?.[g] === true);
  const planesA = usedPlanes(termGroups, 0);
  const planesB = usedPlanes(termGroups, 1);
  const numUsedA = Math.max(1, planesA.length);
  const numUsedB = Math.max(1, planesB.length);
  const tileRows = geo.threadsY * geo.rowsPerThread;
  const tileCols = geo.threadsX * geo.colsPerThread;
  const wordsPerStage = 4 * geo.vec4PerStage;
  const numThreads = geo.threadsX * geo.threadsY;
  const rm = geo.rowsPerThread;
  const rn = geo.colsPerThread;
  const constArray = (values: number[]): string => `array<u32, ${Math.max(1, values.length)}>(${(values.length > 0 ? values : [0]).map((v) => `${v}u`).join(', ')})`;

  const declarations = [
    `const TM = ${tileRows}u;`, `const TN = ${tileCols}u;`, `const KT = ${wordsPerStage}u;`, `const KV = ${geo.vec4PerStage}u;`,
    `const UA = ${numUsedA}u;`, `const UB = ${numUsedB}u;`, `const PA = ${numPlanesA}u;`, `const PB = ${numPlanesB}u;`,
    `const NUM_THREADS = ${numThreads}u;`,
    `const A_PLANES = ${constArray(planesA)};`, `const B_PLANES = ${constArray(planesB)};`,
    `var<workgroup> tileA: array<u32, ${wordsPerStage * numUsedA * tileRows}>;`,
    `var<workgroup> tileB: array<u32, ${wordsPerStage * numUsedB * tileCols}>;`,
    // Stages KV vec4 of each used plane of `count` rows into tile[(kk·U + p)·T + row], kk = 4·kv + lane.
    ...(['A', 'B'] as const).map((s) => {
      const [t, u, p, planes, first, count] = s === 'A' ? ['TM', 'UA', 'PA', 'A_PLANES', 'aRowFirst', 'aCount'] : ['TN', 'UB', 'PB', 'B_PLANES', 'bRowFirst', 'bCount'];
      return `fn stage${s}(tile0: u32, k4: u32, li: u32) {
  for (var t = li; t < ${t} * ${u} * KV; t += NUM_THREADS) {
    let kv = t % KV;
    let p = (t / KV) % ${u};
    let row = t / (KV * ${u});
    var v = vec4<u32>(0u);
    if (tile0 + row < u.${count} && k4 + kv < u.vec4PerPlane) {
      v = ${s}[((u.${first} + tile0 + row) * ${p} + ${planes}[p]) * u.vec4PerPlane + k4 + kv];
    }
    let at = (4u * kv * ${u} + p) * ${t} + row;
    tile${s}[at] = v.x;
    tile${s}[at + ${u} * ${t}] = v.y;
    tile${s}[at + 2u * ${u} * ${t}] = v.z;
    tile${s}[at + 3u * ${u} * ${t}] = v.w;
  }
}`;
    }),
  ].join('\n');

  const body: string[] = [];
  body.push(`  let r0 = wg.y * TM;`, `  let c0 = wg.x * TN;`);
  // Whole tile below the diagonal (every row index ≥ every column index): nothing needed there.
  body.push(`  if (u.skipBelowDiagonal != 0u && i32(r0) + u.diagonalOffset >= i32(c0 + TN - 1u)) { return; }`);
  termGroups.forEach((_g, g) => {
    for (let i = 0; i < rm; i++) for (let j = 0; j < rn; j++) body.push(`  var acc${g}_${i}_${j} = 0u;`);
  });
  body.push(`  for (var k4 = 0u; k4 < u.vec4PerPlane; k4 += KV) {`);
  body.push(`    stageA(r0, k4, li);`, `    stageB(c0, k4, li);`, `    workgroupBarrier();`);
  body.push(`    for (var kk = 0u; kk < KT; kk++) {`);
  planesA.forEach((_p, pIdx) => {
    for (let i = 0; i < rm; i++) body.push(`      let a${pIdx}_${i} = tileA[(kk * UA + ${pIdx}u) * TM + lid.y + ${i * geo.threadsY}u];`);
  });
  planesB.forEach((_p, pIdx) => {
    for (let j = 0; j < rn; j++) body.push(`      let b${pIdx}_${j} = tileB[(kk * UB + ${pIdx}u) * TN + lid.x + ${j * geo.threadsX}u];`);
  });
  termGroups.forEach((group, g) => {
    for (let i = 0; i < rm; i++) {
      for (let j = 0; j < rn; j++) {
        if (group.length === 0) continue;
        const products = group.map(([pa, pb]) => `(a${planesA.indexOf(pa)}_${i} & b${planesB.indexOf(pb)}_${j})`);
        const sum = disjoint[g] ? `countOneBits(${products.join(' | ')})` : products.map((product) => `countOneBits${product}`).join(' + ');
        body.push(`      acc${g}_${i}_${j} += ${sum};`);
      }
    }
  });
  body.push(`    }`, `    workgroupBarrier();`, `  }`);
  body.push(`  let groupStride = u.aCount * u.bCount;`);
  for (let i = 0; i < rm; i++) {
    for (let j = 0; j < rn; j++) {
      body.push(`  {`, `    let r = r0 + lid.y + ${i * geo.threadsY}u;`, `    let c = c0 + lid.x + ${j * geo.threadsX}u;`);
      body.push(`    if (r < u.aCount && c < u.bCount) {`);
      termGroups.forEach((_g, g) => body.push(`      out[${g}u * groupStride + r * u.bCount + c] = acc${g}_${i}_${j};`));
      body.push(`    }`, `  }`);
    }
  }

  const key = [
    'tally2', numPlanesA, numPlanesB, termGroups.map((grp, g) => grp.map(([p, q]) => `${p}.${q}`).join(disjoint[g] ? '|' : '+')).join(','),
    geo.threadsX, geo.threadsY, rm, rn, geo.vec4PerStage,
  ].join(':');
  return {
    cacheKey: key,
    workgroupSize: [geo.threadsX, geo.threadsY],
    storage: [
      { name: 'A', access: 'read', elementType: 'vec4<u32>' },
      { name: 'B', access: 'read', elementType: 'vec4<u32>' },
      { name: 'out', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: TALLY2_UNIFORMS,
    extensions: [],
    declarations,
    mainBody: body.join('\n'),
    tileRows,
    tileCols,
  };
}
