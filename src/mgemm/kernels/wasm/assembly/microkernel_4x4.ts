// The wasm microkernel: a 4×4 tile of popcount(A AND B) sums over one packed K block.

/** Rows of A per micro-panel (MR). */
export const MR: i32 = 4;
/** Rows of B per micro-panel (NR). */
export const NR: i32 = 4;

/**
 * C[i][j] += Σ_s popcount(A[s][i] AND B[s][j]) for i < 4, j < 4, s < numSteps.
 *
 * Layout (what packing writes): A micro-panel step s, row i is the 64-bit word at `a + 8 (4 s + i)`;
 * B likewise at `b + 8 (4 s + j)`. `numSteps` is even (K blocks are multiples of 128 bits), so the loop
 * takes two steps per iteration. C is u32, row i at `c + i * ldcBytes`; sums wrap mod 2^32 (callers
 * guarantee they fit).
 *
 * Why scalar `i64.popcnt` and not `v128.and` + `i8x16.popcnt`: V8 11.3 (Node 20) lowers i8x16.popcnt
 * to a vpshufb nibble-table sequence (~8 vector ops per 128 bits), not to AVX-512 BITALG vpopcntb, so
 * SIMD tiles with byte accumulators run below scalar i64 4×4, which issues one popcnt per cycle (the
 * port-1 limit) from L1 (figures: docs/performance.md, CPU path).
 * Why 4×4: 16 accumulators + 8 operands exceed x64's 15 usable GPRs, but V8 spills the accumulators to
 * the stack, and those loads/stores use ports that popcnt does not; 2×3 to 4×4 all run at the popcnt
 * limit from L1, and 4×4 loads the fewest words per popcount (0.5) when A streams from L2.
 */
@inline
export function popcountMicrokernel_4x4(a: usize, b: usize, numSteps: i32, c: usize, ldcBytes: usize): void {
  let c00: i64 = 0, c01: i64 = 0, c02: i64 = 0, c03: i64 = 0;
  let c10: i64 = 0, c11: i64 = 0, c12: i64 = 0, c13: i64 = 0;
  let c20: i64 = 0, c21: i64 = 0, c22: i64 = 0, c23: i64 = 0;
  let c30: i64 = 0, c31: i64 = 0, c32: i64 = 0, c33: i64 = 0;
  const aEnd = a + (<usize>numSteps << 5);
  while (a < aEnd) {
    let a0 = load<i64>(a, 0), a1 = load<i64>(a, 8), a2 = load<i64>(a, 16), a3 = load<i64>(a, 24);
    let b0 = load<i64>(b, 0), b1 = load<i64>(b, 8), b2 = load<i64>(b, 16), b3 = load<i64>(b, 24);
    c00 += popcnt(a0 & b0); c01 += popcnt(a0 & b1); c02 += popcnt(a0 & b2); c03 += popcnt(a0 & b3);
    c10 += popcnt(a1 & b0); c11 += popcnt(a1 & b1); c12 += popcnt(a1 & b2); c13 += popcnt(a1 & b3);
    c20 += popcnt(a2 & b0); c21 += popcnt(a2 & b1); c22 += popcnt(a2 & b2); c23 += popcnt(a2 & b3);
    c30 += popcnt(a3 & b0); c31 += popcnt(a3 & b1); c32 += popcnt(a3 & b2); c33 += popcnt(a3 & b3);
    a0 = load<i64>(a, 32); a1 = load<i64>(a, 40); a2 = load<i64>(a, 48); a3 = load<i64>(a, 56);
    b0 = load<i64>(b, 32); b1 = load<i64>(b, 40); b2 = load<i64>(b, 48); b3 = load<i64>(b, 56);
    c00 += popcnt(a0 & b0); c01 += popcnt(a0 & b1); c02 += popcnt(a0 & b2); c03 += popcnt(a0 & b3);
    c10 += popcnt(a1 & b0); c11 += popcnt(a1 & b1); c12 += popcnt(a1 & b2); c13 += popcnt(a1 & b3);
    c20 += popcnt(a2 & b0); c21 += popcnt(a2 & b1); c22 += popcnt(a2 & b2); c23 += popcnt(a2 & b3);
    c30 += popcnt(a3 & b0); c31 += popcnt(a3 & b1); c32 += popcnt(a3 & b2); c33 += popcnt(a3 & b3);
    a += 64;
    b += 64;
  }
  addRow(c, c00, c01, c02, c03);
  addRow(c + ldcBytes, c10, c11, c12, c13);
  addRow(c + 2 * ldcBytes, c20, c21, c22, c23);
  addRow(c + 3 * ldcBytes, c30, c31, c32, c33);
}

/** Adds four 64-bit sums into four consecutive u32 of C. */
@inline
function addRow(c: usize, s0: i64, s1: i64, s2: i64, s3: i64): void {
  store<u32>(c, load<u32>(c, 0) + <u32>s0, 0);
  store<u32>(c, load<u32>(c, 4) + <u32>s1, 4);
  store<u32>(c, load<u32>(c, 8) + <u32>s2, 8);
  store<u32>(c, load<u32>(c, 12) + <u32>s3, 12);
}
