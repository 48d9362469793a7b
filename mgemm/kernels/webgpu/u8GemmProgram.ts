// Program factories of the integer-GEMM kernels: out[r][c] = Σ_k A[r][k] · B[c][k] over u8 operands
// (expandProgram.ts), u32 results, for row and column counts padded to U8_GEMM_TILE.
//
// - `subgroup-matrix`: the tensor-core kernel (Dawn's chromium_experimental_subgroup_matrix, u8×u8→u32,
//   16×16×32). A 128×128 workgroup tile, 4 subgroups of 32 threads each own 64×64 (4×4 result
//   matrices); every K step (U8GemmStaging) is staged through workgroup memory with vec4 loads.
//   Needs subgroup size 32 (4 subgroups = 128 invocations).
// - `dot4`: portable dot4U8Packed (4 multiply-adds per instruction), one output per thread; the same
//   operands and outputs, so the expansion and scatter paths are tested on any adapter (lavapipe).
// Both skip tiles wholly below the diagonal when asked (strictUpper requests).

import type { WgslProgram } from './wgslProgram.js';

/** Rows and columns of operands and outputs are padded to a multiple of this. */
export const U8_GEMM_TILE = 128;

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
}

/** Default staging: 32-byte K steps, unpadded rows (8 KiB of workgroup memory); see README for the sweep. */
export const DEFAULT_U8_STAGING: U8GemmStaging = { kStepBytes: 32, rowPadBytes: 0 };

export function createU8GemmProgram(kind: U8GemmKind, staging: U8GemmStaging = DEFAULT_U8_STAGING): U8GemmProgram {
  return kind === 'subgroup-matrix' ? subgroupMatrixProgram(staging) : dot4Program();
}

function subgroupMatrixProgram(staging: U8GemmStaging): U8GemmProgram {
  const WT = U8_GEMM_TILE;
  const KS = staging.kStepBytes;
  const RS = KS + staging.rowPadBytes;
  const KW = KS / 4;
  const RW = RS / 4;
  const V = KW / 4;
  const T = 4;
  const lines: string[] = [];
  lines.push(`  let row0 = wg.y * ${WT}u;`, `  let col0 = wg.x * ${WT}u;`);
  lines.push(`  if (u.skipBelowDiagonal != 0u && i32(row0) + u.diagonalOffset >= i32(col0 + ${WT - 1}u)) { return; }`);
  lines.push(`  let sr = (sg / 2u) * ${WT / 2}u;`, `  let sc = (sg % 2u) * ${WT / 2}u;`);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) lines.push(`  var c${i}_${j} = subgroup_matrix_result<u32, 16, 16>();`);
  const mma = (indent: string): void => {
    lines.push(`${indent}for (var kk = 0u; kk < ${KS}u; kk += 32u) {`);
    for (let i = 0; i < T; i++) lines.push(`${indent}  let a${i} = subgroupMatrixLoad<subgroup_matrix_left<u8, 32, 16>>(&As, (sr + ${16 * i}u) * ${RS}u + kk, false, ${RS}u);`);
    for (let j = 0; j < T; j++) lines.push(`${indent}  let b${j} = subgroupMatrixLoad<subgroup_matrix_right<u8, 16, 32>>(&Bs, (sc + ${16 * j}u) * ${RS}u + kk, true, ${RS}u);`);
    for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) lines.push(`${indent}  c${i}_${j} = subgroupMatrixMultiplyAccumulate(a${i}, b${j}, c${i}_${j});`);
    lines.push(`${indent}}`);
  };
  if (staging.prefetch === true) {
    // Each of the 128 threads stages V vec4 of A and of B per step: item m is t = li + 128·m.
    const items = Array.from({ length: V }, (_, m) => m);
    for (const m of items) {
      lines.push(`  let r${m} = (li + ${128 * m}u) / ${V}u;`, `  let w${m} = (li + ${128 * m}u) % ${V}u;`, `  let o${m} = r${m} * ${RW}u + w${m} * 4u;`);
      lines.push(`  var pa${m} = A[((row0 + r${m}) * u.kBytes) / 16u + w${m}];`, `  var pb${m} = B[((col0 + r${m}) * u.kBytes) / 16u + w${m}];`);
    }
    const store = (indent: string): void => {
      for (const m of items) {
        lines.push(`${indent}As[o${m}] = pa${m}.x; As[o${m} + 1u] = pa${m}.y; As[o${m} + 2u] = pa${m}.z; As[o${m} + 3u] = pa${m}.w;`);
        lines.push(`${indent}Bs[o${m}] = pb${m}.x; Bs[o${m} + 1u] = pb${m}.y; Bs[o${m} + 2u] = pb${m}.z; Bs[o${m} + 3u] = pb${m}.w;`);
      }
    };
    store('  ');
    lines.push(`  workgroupBarrier();`);
    lines.push(`  for (var k = 0u; k < u.kBytes; k += ${KS}u) {`, `    let next = k + ${KS}u;`, `    if (next < u.kBytes) {`);
    for (const m of items) {
      lines.push(`      pa${m} = A[((row0 + r${m}) * u.kBytes + next) / 16u + w${m}];`, `      pb${m} = B[((col0 + r${m}) * u.kBytes + next) / 16u + w${m}];`);
    }
    lines.push(`    }`);
    mma('    ');
    lines.push(`    workgroupBarrier();`, `    if (next < u.kBytes) {`);
    store('      ');
    lines.push(`    }`, `    workgroupBarrier();`, `  }`);
  } else {
    lines.push(`  for (var k = 0u; k < u.kBytes; k += ${KS}u) {`);
    lines.push(`    for (var t = li; t < ${WT * V}u; t += 128u) {`);
    lines.push(`      let r = t / ${V}u;`, `      let w = t % ${V}u;`);
    lines.push(`      let a = A[((row0 + r) * u.kBytes + k) / 16u + w];`, `      let b = B[((col0 + r) * u.kBytes + k) / 16u + w];`);
    lines.push(`      let o = r * ${RW}u + w * 4u;`);
    lines.push(`      As[o] = a.x; As[o + 1u] = a.y; As[o + 2u] = a.z; As[o + 3u] = a.w;`);
    lines.push(`      Bs[o] = b.x; Bs[o + 1u] = b.y; Bs[o + 2u] = b.z; Bs[o + 3u] = b.w;`);
    lines.push(`    }`, `    workgroupBarrier();`);
    mma('    ');
    lines.push(`    workgroupBarrier();`, `  }`);
  }
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      lines.push(`  subgroupMatrixStore(&out, u.outOffset + (row0 + sr + ${16 * i}u) * u.outStride + col0 + sc + ${16 * j}u, c${i}_${j}, false, u.outStride);`);
    }
  }
  return {
    cacheKey: `u8gemm:subgroup-matrix:128x128:k${KS}:row${RS}${staging.prefetch === true ? ':prefetch' : ''}`,
    workgroupSize: [128, 1],
    storage: [
      { name: 'A', access: 'read', elementType: 'vec4<u32>' },
      { name: 'B', access: 'read', elementType: 'vec4<u32>' },
      { name: 'out', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: UNIFORMS,
    extensions: ['chromium_experimental_subgroup_matrix'],
    directives: ['diagnostic(off, chromium_experimental.subgroup_matrix_uniformity);'],
    extraBuiltins: '@builtin(subgroup_id) sg: u32',
    declarations: `var<workgroup> As: array<u32, ${WT * RW}>;\nvar<workgroup> Bs: array<u32, ${WT * RW}>;`,
    mainBody: lines.join('\n'),
    tileRows: WT,
    tileCols: WT,
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
