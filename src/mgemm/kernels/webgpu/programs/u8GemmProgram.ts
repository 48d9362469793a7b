// Program factories of the integer-GEMM kernels: out[r][c] = Σ_k A[r][k] · B[c][k] over u8 operands
// (expandProgram.ts), u32 results, rows padded to U8_GEMM_ROW_TILE and columns to U8_GEMM_COL_TILE.
//
// - `subgroup-matrix`: the tensor-core kernel (Dawn's chromium_experimental_subgroup_matrix, u8×u8→u32,
//   16×16×32). A 128×256 (or 128×128) workgroup tile, subgroups of 32 threads each own 64×64 (4×4
//   result matrices); every K step (U8GemmStaging) is staged through workgroup memory as 32-byte K panels
//   with vec4 loads, prefetched into registers during the multiply-adds. Needs subgroup size 32. Loads use the
//   layout-template forms, whose offsets and strides count the workgroup arrays' u32 elements (4 u8 each):
//   Dawn deprecates the bool forms (which count u8 elements) and prints a warning to stdout for each use.
// - `dot4`: portable dot4U8Packed (4 multiply-adds per instruction), one output per thread; the same
//   operands and outputs, so the expansion and scatter paths are tested on any adapter (lavapipe).
// Both skip tiles wholly below the diagonal when asked (strictUpper requests), and add to the output already there
// when asked (`accumulate`: the K slabs after the first, u8Slabs.ts).

import type { WgslProgram } from './wgslProgram.js';

/** Rows of operands and outputs are padded to a multiple of this, columns to a multiple of U8_GEMM_COL_TILE. */
export const U8_GEMM_ROW_TILE = 128;
export const U8_GEMM_COL_TILE = 256;

export type U8GemmKind = 'subgroup-matrix' | 'dot4';

const UNIFORMS = [
  { name: 'kBytes', type: 'u32' }, { name: 'outStride', type: 'u32' }, { name: 'outOffset', type: 'u32' },
  { name: 'skipBelowDiagonal', type: 'u32' }, { name: 'diagonalOffset', type: 'i32' }, { name: 'accumulate', type: 'u32' },
] as const;

export interface U8GemmProgram extends WgslProgram {
  /** Output rows and columns of one workgroup. */
  readonly tileRows: number;
  readonly tileCols: number;
}

/** Staging of the tensor-core kernel: bytes of K per workgroup-memory step, prefetch and workgroup tile width. */
export interface U8GemmStaging {
  /** 32, 64 or 128 (kBytes is a multiple of 128). */
  readonly kStepBytes: 32 | 64 | 128;
  /** Load the next K step into registers while the tensor cores work on the current one. */
  readonly prefetch?: boolean;
  /** Output columns of a workgroup: 128 (4 subgroups) or 256 (8 subgroups, A staged once for twice the columns). */
  readonly tileCols?: 128 | 256;
}

/**
 * Default staging: 64-byte K steps, register prefetch, 128 × 256 workgroup tiles (24 KiB of workgroup memory);
 * docs/performance.md has the sweep (bench-gpu --stagings) and the probe of what limits the kernel.
 */
export const DEFAULT_U8_STAGING: U8GemmStaging = { kStepBytes: 64, prefetch: true, tileCols: 256 };

export function createU8GemmProgram(kind: U8GemmKind, staging: U8GemmStaging = DEFAULT_U8_STAGING): U8GemmProgram {
  return kind === 'subgroup-matrix' ? subgroupMatrixProgram(staging) : dot4Program();
}

/**
 * Workgroup memory holds one K step of the tile's rows as 32-byte K panels: panel p (bytes 32p..32p+31 of every
 * row) is `rows` × 8 words, rows 8 words apart. A fragment (16 rows × 32 bytes) is then 128 consecutive words,
 * so the tensor cores' loads meet no bank conflicts whatever the step's length; whole staged rows of 64 or 128
 * bytes put every second or fourth row on the same banks (padding them helped less: docs/performance.md).
 */
const PANEL_WORDS_PER_ROW = 8;

function subgroupMatrixProgram(staging: U8GemmStaging): U8GemmProgram {
  const WT = U8_GEMM_ROW_TILE;
  const WTN = staging.tileCols ?? 128;
  /** Subgroups per row of the workgroup tile (each owns 64 × 64) and threads of the workgroup. */
  const SGC = WTN / 64;
  const NT = 32 * 2 * SGC;
  const KS = staging.kStepBytes;
  /** vec4 (16 bytes) per staged row of a step. */
  const V = KS / 16;
  const T = 4;
  /** Word of staged row `r` at vec4 `vec4` of the step, for a side of `rows` rows (K panels). */
  const stagedWord = (rows: number, r: string, vec4: string): string =>
    `(${vec4} / 2u) * ${rows * PANEL_WORDS_PER_ROW}u + ${r} * ${PANEL_WORDS_PER_ROW}u + (${vec4} % 2u) * 4u`;
  /** Word of fragment row `r` at K byte `kk` of the staged step. */
  const fragmentWord = (rows: number, r: string): string => `(kk / 32u) * ${rows * PANEL_WORDS_PER_ROW}u + ${r} * ${PANEL_WORDS_PER_ROW}u`;
  const lines: string[] = [];
  lines.push(`  let row0 = wg.y * ${WT}u;`, `  let col0 = wg.x * ${WTN}u;`);
  lines.push(`  if (u.skipBelowDiagonal != 0u && i32(row0) + u.diagonalOffset >= i32(col0 + ${WTN - 1}u)) { return; }`);
  lines.push(`  let sr = (sg / ${SGC}u) * 64u;`, `  let sc = (sg % ${SGC}u) * 64u;`);
  /** Offset in `out` of result matrix (i, j) of this subgroup. */
  const resultOffset = (i: number, j: number): string => `u.outOffset + (row0 + sr + ${16 * i}u) * u.outStride + col0 + sc + ${16 * j}u`;
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) lines.push(`  var c${i}_${j} = subgroup_matrix_result<u32, 16, 16>();`);
  lines.push(`  if (u.accumulate != 0u) {`);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      lines.push(`    c${i}_${j} = subgroupMatrixLoad<subgroup_matrix_result<u32, 16, 16>, row_major>(&out, ${resultOffset(i, j)}, u.outStride);`);
    }
  }
  lines.push(`  }`);
  /** The tensor-core work of one staged K step: the microkernel. */
  const mma = (indent: string): void => {
    lines.push(`${indent}for (var kk = 0u; kk < ${KS}u; kk += 32u) {`);
    for (let i = 0; i < T; i++) lines.push(`${indent}  let a${i} = subgroupMatrixLoad<subgroup_matrix_left<u8, 32, 16>, row_major>(&As, ${fragmentWord(WT, `(sr + ${16 * i}u)`)}, ${PANEL_WORDS_PER_ROW}u);`);
    for (let j = 0; j < T; j++) lines.push(`${indent}  let b${j} = subgroupMatrixLoad<subgroup_matrix_right<u8, 16, 32>, col_major>(&Bs, ${fragmentWord(WTN, `(sc + ${16 * j}u)`)}, ${PANEL_WORDS_PER_ROW}u);`);
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) lines.push(`${indent}  c${i}_${j} = subgroupMatrixMultiplyAccumulate(a${i}, b${j}, c${i}_${j});`);
    lines.push(`${indent}}`);
  };
  if (staging.prefetch === true) {
    // The NT threads stage WT·V vec4 of A and WTN·V of B per step: item m of a side is t = li + NT·m.
    const sides = [
      { s: 'a', arr: 'A', tile: 'As', first: 'row0', rows: WT, items: Array.from({ length: (WT * V) / NT }, (_, m) => m) },
      { s: 'b', arr: 'B', tile: 'Bs', first: 'col0', rows: WTN, items: Array.from({ length: (WTN * V) / NT }, (_, m) => m) },
    ];
    for (const { s: x, arr, first, rows, items } of sides) {
      for (const m of items) {
        lines.push(`  let r${x}${m} = (li + ${NT * m}u) / ${V}u;`, `  let w${x}${m} = (li + ${NT * m}u) % ${V}u;`, `  let o${x}${m} = ${stagedWord(rows, `r${x}${m}`, `w${x}${m}`)};`);
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
      lines.push(`      let o = ${stagedWord(rows, 'r', 'w')};`);
      lines.push(`      ${tile}[o] = v.x; ${tile}[o + 1u] = v.y; ${tile}[o + 2u] = v.z; ${tile}[o + 3u] = v.w;`);
      lines.push(`    }`);
    }
    lines.push(`    workgroupBarrier();`);
    mma('    ');
    lines.push(`    workgroupBarrier();`, `  }`);
  }
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      lines.push(`  subgroupMatrixStore<row_major>(&out, ${resultOffset(i, j)}, c${i}_${j}, u.outStride);`);
    }
  }
  return {
    cacheKey: `u8gemm:subgroup-matrix:${WT}x${WTN}:k${KS}${staging.prefetch === true ? ':prefetch' : ''}`,
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
    declarations: `var<workgroup> As: array<u32, ${(WT * KS) / 4}>;\nvar<workgroup> Bs: array<u32, ${(WTN * KS) / 4}>;`,
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
  let at = u.outOffset + r * u.outStride + c;
  var acc = select(0u, out[at], u.accumulate != 0u);
  for (var q = 0u; q < k4; q++) { acc += dot4U8Packed(A[r * k4 + q], B[c * k4 + q]); }
  out[at] = acc;`,
    tileRows: T,
    tileCols: T,
  };
}
