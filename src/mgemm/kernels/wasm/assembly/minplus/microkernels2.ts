// The 2-way min-plus wasm microkernels: an MR × NR tile of Σ_f min(a, b) over one packed field block.
//
// Identity: C[i][j] = (…((C[i][j] + min(A[0][i], B[0][j])) + min(A[1][i], B[1][j])) + …), one field after another,
// every operation in the precision of the kernel: vectorized across the NR columns, never across fields, so each
// sum is added in field order exactly as the reference kernel adds it (minPlusKernels.ts).
// Layout (what packing writes): A micro-panel, field f, row i at `a + size·(MR·f + i)`; B micro-panel, field f,
// column j at `b + size·(NR·f + j)`; C rows `ldcBytes` apart. Any field count (no alignment of K).
//
// Why `pmin` (`b < a ? b : a`, one minpd/minps) and not `min` (IEEE minimum, ~7 instructions on x64 to order ±0 and
// propagate NaN): operands are never NaN or negative (inputs are refused), so the two differ only in the sign of a
// zero result, and a zero's sign never reaches a sum: sums start at +0, +0 + ±0 = +0 and s + ±0 = s for s > 0.

/** Tile of the double kernel: 4 rows × 4 columns (8 f64x2 accumulators, leaving registers for operands). */
export const MR_F64: i32 = 4;
export const NR_F64: i32 = 4;
/** Tile of the single kernel: 4 rows × 8 columns (8 f32x4 accumulators). */
export const MR_F32: i32 = 4;
export const NR_F32: i32 = 8;

/** C tile += Σ_f min(A, B), double, 4 × 4 (see the header). */
@inline
export function minPlus2Microkernel_f64_4x4(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  const c1 = c + ldcBytes, c2 = c1 + ldcBytes, c3 = c2 + ldcBytes;
  let s00 = v128.load(c), s01 = v128.load(c, 16);
  let s10 = v128.load(c1), s11 = v128.load(c1, 16);
  let s20 = v128.load(c2), s21 = v128.load(c2, 16);
  let s30 = v128.load(c3), s31 = v128.load(c3, 16);
  const aEnd = a + (<usize>numFields << 5);
  while (a < aEnd) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    const a0 = v128.load64_splat(a), a1 = v128.load64_splat(a, 8), a2 = v128.load64_splat(a, 16), a3 = v128.load64_splat(a, 24);
    s00 = f64x2.add(s00, f64x2.pmin(a0, b0)); s01 = f64x2.add(s01, f64x2.pmin(a0, b1));
    s10 = f64x2.add(s10, f64x2.pmin(a1, b0)); s11 = f64x2.add(s11, f64x2.pmin(a1, b1));
    s20 = f64x2.add(s20, f64x2.pmin(a2, b0)); s21 = f64x2.add(s21, f64x2.pmin(a2, b1));
    s30 = f64x2.add(s30, f64x2.pmin(a3, b0)); s31 = f64x2.add(s31, f64x2.pmin(a3, b1));
    a += 32;
    b += 32;
  }
  v128.store(c, s00); v128.store(c, s01, 16);
  v128.store(c1, s10); v128.store(c1, s11, 16);
  v128.store(c2, s20); v128.store(c2, s21, 16);
  v128.store(c3, s30); v128.store(c3, s31, 16);
}

/** C tile += Σ_f min(A, B), single, 4 × 8 (see the header). */
@inline
export function minPlus2Microkernel_f32_4x8(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  const c1 = c + ldcBytes, c2 = c1 + ldcBytes, c3 = c2 + ldcBytes;
  let s00 = v128.load(c), s01 = v128.load(c, 16);
  let s10 = v128.load(c1), s11 = v128.load(c1, 16);
  let s20 = v128.load(c2), s21 = v128.load(c2, 16);
  let s30 = v128.load(c3), s31 = v128.load(c3, 16);
  const aEnd = a + (<usize>numFields << 4);
  while (a < aEnd) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    const a0 = v128.load32_splat(a), a1 = v128.load32_splat(a, 4), a2 = v128.load32_splat(a, 8), a3 = v128.load32_splat(a, 12);
    s00 = f32x4.add(s00, f32x4.pmin(a0, b0)); s01 = f32x4.add(s01, f32x4.pmin(a0, b1));
    s10 = f32x4.add(s10, f32x4.pmin(a1, b0)); s11 = f32x4.add(s11, f32x4.pmin(a1, b1));
    s20 = f32x4.add(s20, f32x4.pmin(a2, b0)); s21 = f32x4.add(s21, f32x4.pmin(a2, b1));
    s30 = f32x4.add(s30, f32x4.pmin(a3, b0)); s31 = f32x4.add(s31, f32x4.pmin(a3, b1));
    a += 16;
    b += 32;
  }
  v128.store(c, s00); v128.store(c, s01, 16);
  v128.store(c1, s10); v128.store(c1, s11, 16);
  v128.store(c2, s20); v128.store(c2, s21, 16);
  v128.store(c3, s30); v128.store(c3, s31, 16);
}
