// The 3-way min-plus wasm microkernels: an MR × NR tile of Σ_f ((p + q) + r) − min(x, y, z) over one packed field
// block, for one y vector, x rows against z columns; {p, q, r} = {min(x,y), min(x,z), min(y,z)} with r the one
// `last` names (0 = min(x,y), 1 = min(x,z), 2 = min(y,z)): SPEC §8's order of the operands' global indices (only
// the last addend matters, addition being commutative).
//
// Every sum runs in field order in the kernel's precision, vectorized across the NR z columns only (as the 2-way
// kernels, microkernels2.ts, which also says why `pmin` is exact here: a zero's sign never reaches a sum; here a term
// is ±0 only when all its mins are zero, and then adds nothing).
// Layout (what packing writes): A micro-panel, field f: x rows i < MR at `a + size·(2·MR·f + i)`, then min(x_i, y) at
// `a + size·(2·MR·f + MR + i)`; B micro-panel, field f: z columns j < NR at `b + size·(2·NR·f + j)`, then min(y, z_j)
// at `b + size·(2·NR·f + NR + j)`. So min(x, y) and min(y, z) are taken once per field in packing, not per tile entry.

/** Tile of the double kernel: 4 × 4. */
export const MR3_F64: i32 = 4;
export const NR3_F64: i32 = 4;
/** Tile of the single kernel: 4 × 8. */
export const MR3_F32: i32 = 4;
export const NR3_F32: i32 = 8;

/** One field's term for two lanes, double: ((p + q) + r) − min(xy, z). */
@inline
function termF64(x: v128, xy: v128, z: v128, yz: v128, last: i32): v128 {
  const xz = f64x2.pmin(x, z);
  const xyz = f64x2.pmin(xy, z);
  const sum = last == 2 ? f64x2.add(f64x2.add(xy, xz), yz)
    : last == 1 ? f64x2.add(f64x2.add(xy, yz), xz)
    : f64x2.add(f64x2.add(xz, yz), xy);
  return f64x2.sub(sum, xyz);
}

/** One field's term for four lanes, single. */
@inline
function termF32(x: v128, xy: v128, z: v128, yz: v128, last: i32): v128 {
  const xz = f32x4.pmin(x, z);
  const xyz = f32x4.pmin(xy, z);
  const sum = last == 2 ? f32x4.add(f32x4.add(xy, xz), yz)
    : last == 1 ? f32x4.add(f32x4.add(xy, yz), xz)
    : f32x4.add(f32x4.add(xz, yz), xy);
  return f32x4.sub(sum, xyz);
}

/** C tile += Σ_f term, double, 4 × 4; `last` is a constant at each call site, so its branches fold away. */
@inline
export function minPlus3Microkernel_f64_4x4(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize, last: i32): void {
  const c1 = c + ldcBytes, c2 = c1 + ldcBytes, c3 = c2 + ldcBytes;
  let s00 = v128.load(c), s01 = v128.load(c, 16);
  let s10 = v128.load(c1), s11 = v128.load(c1, 16);
  let s20 = v128.load(c2), s21 = v128.load(c2, 16);
  let s30 = v128.load(c3), s31 = v128.load(c3, 16);
  const aEnd = a + (<usize>numFields << 6);
  while (a < aEnd) {
    const z0 = v128.load(b), z1 = v128.load(b, 16), yz0 = v128.load(b, 32), yz1 = v128.load(b, 48);
    let x = v128.load64_splat(a), xy = v128.load64_splat(a, 32);
    s00 = f64x2.add(s00, termF64(x, xy, z0, yz0, last)); s01 = f64x2.add(s01, termF64(x, xy, z1, yz1, last));
    x = v128.load64_splat(a, 8); xy = v128.load64_splat(a, 40);
    s10 = f64x2.add(s10, termF64(x, xy, z0, yz0, last)); s11 = f64x2.add(s11, termF64(x, xy, z1, yz1, last));
    x = v128.load64_splat(a, 16); xy = v128.load64_splat(a, 48);
    s20 = f64x2.add(s20, termF64(x, xy, z0, yz0, last)); s21 = f64x2.add(s21, termF64(x, xy, z1, yz1, last));
    x = v128.load64_splat(a, 24); xy = v128.load64_splat(a, 56);
    s30 = f64x2.add(s30, termF64(x, xy, z0, yz0, last)); s31 = f64x2.add(s31, termF64(x, xy, z1, yz1, last));
    a += 64;
    b += 64;
  }
  v128.store(c, s00); v128.store(c, s01, 16);
  v128.store(c1, s10); v128.store(c1, s11, 16);
  v128.store(c2, s20); v128.store(c2, s21, 16);
  v128.store(c3, s30); v128.store(c3, s31, 16);
}

/** C tile += Σ_f term, single, 4 × 8. */
@inline
export function minPlus3Microkernel_f32_4x8(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize, last: i32): void {
  const c1 = c + ldcBytes, c2 = c1 + ldcBytes, c3 = c2 + ldcBytes;
  let s00 = v128.load(c), s01 = v128.load(c, 16);
  let s10 = v128.load(c1), s11 = v128.load(c1, 16);
  let s20 = v128.load(c2), s21 = v128.load(c2, 16);
  let s30 = v128.load(c3), s31 = v128.load(c3, 16);
  const aEnd = a + (<usize>numFields << 5);
  while (a < aEnd) {
    const z0 = v128.load(b), z1 = v128.load(b, 16), yz0 = v128.load(b, 32), yz1 = v128.load(b, 48);
    let x = v128.load32_splat(a), xy = v128.load32_splat(a, 16);
    s00 = f32x4.add(s00, termF32(x, xy, z0, yz0, last)); s01 = f32x4.add(s01, termF32(x, xy, z1, yz1, last));
    x = v128.load32_splat(a, 4); xy = v128.load32_splat(a, 20);
    s10 = f32x4.add(s10, termF32(x, xy, z0, yz0, last)); s11 = f32x4.add(s11, termF32(x, xy, z1, yz1, last));
    x = v128.load32_splat(a, 8); xy = v128.load32_splat(a, 24);
    s20 = f32x4.add(s20, termF32(x, xy, z0, yz0, last)); s21 = f32x4.add(s21, termF32(x, xy, z1, yz1, last));
    x = v128.load32_splat(a, 12); xy = v128.load32_splat(a, 28);
    s30 = f32x4.add(s30, termF32(x, xy, z0, yz0, last)); s31 = f32x4.add(s31, termF32(x, xy, z1, yz1, last));
    a += 32;
    b += 64;
  }
  v128.store(c, s00); v128.store(c, s01, 16);
  v128.store(c1, s10); v128.store(c1, s11, 16);
  v128.store(c2, s20); v128.store(c2, s21, 16);
  v128.store(c3, s30); v128.store(c3, s31, 16);
}
