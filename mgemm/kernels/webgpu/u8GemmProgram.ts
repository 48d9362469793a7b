// Program factories of the integer-GEMM kernels: out[r][c] = Σ_k A[r][k] · B[c][k] over u8 operands
// (expandProgram.ts), u32 results, rows padded to U8_GEMM_ROW_TILE and columns to U8_GEMM_COL_TILE.
//
// - `subgroup-matrix`: the tensor-core kernel (Dawn's chromium_experimental_subgroup_matrix, u8×u8→u32,
//   16×16×32). A 128×128 (or 128×256) workgroup tile, subgroups of 32 threads each own 64×64 (4×4
//   result matrices); every K step (U8GemmStaging) is staged through workgroup memory with vec4 loads,
//   optionally prefetched into registers during the multiply-adds. Needs subgroup size 32. Loads use the
//   layout-template forms, whose offsets and strides count the workgroup arrays' u32 elements (4 u8 each);
//   the deprecated bool forms counted u8 elements, and Dawn printed a warning to stdout for each.
// - `dot4`: portable dot4U8Packed (4 multiply-adds per instruction), one output per thread; the same
//   operands and outputs, so the expansion and scatter paths are tested on any adapter (lavapipe).
// Both skip tiles wholly below the diagonal when asked (strictUpper requests).

import type { WgslProgram } from './wgslProgram.js';

/** Rows of operands and outputs are padded to a multiple of this, columns to a multiple of U8_GEMM_COL_TILE. */
export const U8_GEMM_ROW_TILE = 128;
export const U8_GEMM_COL_TILE = 256;

export type U8GemmKind = 'subgroup-matrix' | 'dot4';

const UNIFORMS = [
  { name: 'kBytes', type: 'u32' }, { name: 'outStride', type: 'u32' }, { name: 'outOffset', type: 'u32' },
  { name: 'skipBelowDiagonal', type: 'u32' }, { name: 'diagonalOffset', type: 'i32' },
] as const;

export interface U8GemmProgram extends WgslProgram {
  /** Output rows and columns of one workgroup. */
  readonly tileRows: number;
  readonly tileCols: number;
}

/** Staging of the tensor-core kernel: bytes of K per workgroup-memory step, and padding of each staged row. */
export interface U8GemmStaging {
  /** 32, 64 or 128 (kBytes is a multiple of 128). */
  readonly kStepBytes: number;
  /** Extra bytes per staged row (a multiple of 16) to spread rows over memory banks. */
  readonly rowPadBytes: number;
  /** Load the next K step into registers while the tensor cores work on the current one. */
  readonly prefetch?: boolean;
  /** Output columns of a workgroup: 128 (4 subgroups) or 256 (8 subgroups, A staged once for twice the columns). */
  readonly tileCols?: 128 | 256;
}

/** Default staging: 32-byte K steps, unpadded rows (8 KiB of workgroup memory), register prefetch; see docs/gpu-notes.md for the sweep. */
export const DEFAULT_U8_STAGING: U8GemmStaging = { kStepBytes: 32, rowPadBytes: 0, prefetch: true, tileCols: 128 };

export function createU8GemmProgram(kind: U8GemmKind, staging: U8GemmStaging = DEFAULT_U8_STAGING): U8GemmProgram {
  return kind === 'subgroup-matrix' ? subgroupMatrixProgram(staging) : dot4Program();
}

function subgroupMatrixProgram(staging: U8GemmStaging): U8GemmProgram {
  const WT = U8_GEMM_ROW_TILE;
  const WTN = staging.tileCols ?? 128;
  /** Subgroups per row of the workgroup tile (each owns 64 × 64) and threads of the workgroup. */
  const SGC = WTN / 64;
  const NT = 32 * 2 * SGC;
  const KS = staging.kStepBytes;
  const RS = KS + staging.rowPadBytes;
  const KW = KS / 4;
  const RW = RS / 4;
  const V = KW / 4;
  const T = 4;
  const lines: string[] = [];
  lines.push(`  let row0 = wg.y * ${WT}u;`, `  let col0 = wg.x * ${WTN}u;`);
  lines.push(`  if (u.skipBelowDiagonal != 0u && i32(row0) + u.diagonalOffset >= i32(col0 + ${WTN - 1}u)) { return; }`);
  lines.push(`  let sr = (sg / ${SGC}u) * 64u;`, `  let sc = (sg % ${SGC}u) * 64u;`);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) lines.push(`  var c${i}_${j} = subgroup_matrix_result<u32, 16, 16>();`);
  const mma = (indent: string): void => {
    lines.push(`${indent}for (var kk = 0u; kk < ${KS}u; kk += 32u) {`);
    for (let i = 0; i < T; i++) lines.push(`${indent}  let a${i} = subgroupMatrixLoad<subgroup_matrix_left<u8, 32, 16>, row_major>(&As, (sr + ${16 * i}u) * ${RW}u + kk / 4u, ${RW}u);`);
    for (let j = 0; j < T; j++) lines.push(`${indent}  let b${j} = subgroupMatrixLoad<subgroup_matrix_right<u8, 16, 32>, col_major>(&Bs, (sc + ${16 * j}u) * ${RW}u + kk / 4u, ${RW}u);`);
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) lines.push(`${indent}  c${i}_${j} = subgroupMatrixMultiplyAccumulate(a${i}, b${j}, c${i}_${j});`);
    lines.push(`${indent}}`);
  };
  if (staging.prefetch === true) {
    // The NT threads stage WT·V vec4 of A and WTN·V of B per step: item m of a side is t = li + NT·m.
    const sides = [
      { s: 'a', arr: 'A', tile: 'As', first: 'row0', items: Array.from({ length: (WT * V) / NT }, (_, m) => m) },
      { s: 'b', arr: 'B', tile: 'Bs', first: 'col0', items: Array.from({ length: (WTN * V) / NT }, (_, m) => m) },
    ];
    for (const { s: x, arr, first, items } of sides) {
      for (const m of items) {
        lines.push(`  let r${x}${m} = (li + ${NT * m}u) / ${V}u;`, `  let w${x}${m} = (li + ${NT * m}u) % ${V}u;`, `  let o${x}${m} = r${x}${m} * ${RW}u + w${x}${m} * 4u;`);
        lines.push(`  var p${x}${m} = ${arr}[((${first} + r${x}${m}) * u.kBytes) / 16u + w${x}${m}];`);
      }
    }
    const store = (indent: string): void => {
      for (const { s: x, tile, items } of sides) {
        for (const m of items) {
          lines.push(`${indent}${tile}[o${x}${m}] = p${x}${m}.x; ${tile}[o${x}${m} + 1u] = p${x}${m}.y; ${tile}[o${x}${m} + 2u] = p${x}${m}.z; ${tile}[o${x}${m} + 3u] = p${x}${m}.w;`);
        }
      }
    };
    store('  ');
    lines.push(`  workgroupBarrier();`);
    lines.push(`  for (var k = 0u; k < u.kBytes; k += ${KS}u) {`, `    let next = k + ${KS}u;`, `    if (next < u.kBytes) {`);
    for (const { s: x, arr, first, items } of sides) {
      for (const m of items) lines.push(`      p${x}${m} = ${arr}[((${first} + r${x}${m}) * u.kBytes + next) / 16u + w${x}${m}];`);
    }
    lines.push(`    }`);
    mma('    ');
    lines.push(`    workgroupBarrier();`, `    if (next < u.kBytes) {`);
    store('      ');
    lines.push(`    }`, `    workgroupBarrier();`, `  }`);
  } else {
    lines.push(`  for (var k = 0u; k < u.kBytes; k += ${KS}u) {`);
    for (const [arr, tile, first, rows] of [['A', 'As', 'row0', WT], ['B', 'Bs', 'col0', WTN]] as const) {
      lines.push(`    for (var t = li; t < ${rows * V}u; t += ${NT}u) {`);
      lines.push(`      let r = t / ${V}u;`, `      let w = t % ${V}u;`);
      lines.push(`      let v = ${arr}[((${first} + r) * u.kBytes + k) / 16u + w];`);
      lines.push(`      let o = r * ${RW}u + w * 4u;`);
      lines.push(`      ${tile}[o] = v.x; ${tile}[o + 1u] = v.y; ${tile}[o + 2u] = v.z; ${tile}[o + 3u] = v.w;`);
      lines.push(`    }`);
    }
    lines.push(`    workgroupBarrier();`);
    mma('    ');
    lines.push(`    workgroupBarrier();`, `  }`);
  }
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      lines.push(`  subgroupMatrixStore<row_major>(&out, u.outOffset + (row0 + sr + ${16 * i}u) * u.outStride + col0 + sc + ${16 * j}u, c${i}_${j}, u.outStride);`);
    }
  }
  return {
    cacheKey: `u8gemm:subgroup-matrix:${WT}x${WTN}:k${KS}:row${RS}${staging.prefetch === true ? ':prefetch' : ''}`,
    workgroupSize: [NT, 1],
    storage: [
      { name: 'A', access: 'read', elementType: 'vec4<u32>' },
      { name: 'B', access: 'read', elementType: 'vec4<u32>' },
      { name: 'out', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: UNIFORMS,
    extensions: ['chromium_experimental_subgroup_matrix'],
    directives: ['diagnostic(off, chromium_experimental.subgroup_matrix_uniformity);'],
    extraBuiltins: '@builtin(subgroup_id) sg: u32',
    declarations: `var<workgroup> As: array<u32, ${WT * RW}>;\nvar<workgroup> Bs: array<u32, ${WTN * RW}>;`,
    mainBody: lines.join('\n'),
    tileRows: WT,
    tileCols: WTN,
  };
}

function dot4Program(): U8GemmProgram {
  const T = 16;
  return {
    cacheKey: 'u8gemm:dot4:16x16',
    workgroupSize: [T, T],
    storage: [
      { name: 'A', access: 'read', elementType: 'u32' },
      { name: 'B', access: 'read', elementType: 'u32' },
      { name: 'out', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: UNIFORMS,
    extensions: [],
    declarations: '',
    mainBody: `  let r0 = wg.y * ${T}u;
  let c0 = wg.x * ${T}u;
  if (u.skipBelowDiagonal != 0u && i32(r0) + u.diagonalOffset >= i32(c0 + ${T - 1}u)) { return; }
  let r = r0 + lid.y;
  let c = c0 + lid.x;
  let k4 = u.kBytes / 4u;
  var acc = 0u;
  for (var q = 0u; q < k4; q++) { acc += dot4U8Packed(A[r * k4 + q], B[c * k4 + q]); }
  out[u.outOffset + r * u.outStride + c] = acc;`,
    tileRows: T,
    tileCols: T,
  };
}
