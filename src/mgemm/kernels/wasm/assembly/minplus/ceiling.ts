// The ceiling the min-plus kernels are measured against (tools/bench-cpu): this core's rate of SIMD min + add
// pairs from registers, with no loads, no splats and no stores (the microkernels' only arithmetic).

/**
 * Runs `iterations` × 12 independent f64x2 (or f32x4) `s = s + pmin(s, cap)` steps and returns a lane of the
 * result (so the work is not dead). 12 chains cover the min → add latency; with `cap` = 1 each chain counts up by
 * ones (no infinities, no subnormals), and the runtime cannot know `cap`, so the min is really done.
 */
export function minAddCeiling(iterations: i32, single: i32, cap: f64): f64 {
  const one = single ? f32x4.splat(1) : f64x2.splat(1);
  let s0 = one, s1 = one, s2 = one, s3 = one, s4 = one, s5 = one;
  let s6 = one, s7 = one, s8 = one, s9 = one, s10 = one, s11 = one;
  if (single) {
    const c = f32x4.splat(<f32>cap);
    for (let i = 0; i < iterations; i++) {
      s0 = f32x4.add(s0, f32x4.pmin(s0, c)); s1 = f32x4.add(s1, f32x4.pmin(s1, c)); s2 = f32x4.add(s2, f32x4.pmin(s2, c));
      s3 = f32x4.add(s3, f32x4.pmin(s3, c)); s4 = f32x4.add(s4, f32x4.pmin(s4, c)); s5 = f32x4.add(s5, f32x4.pmin(s5, c));
      s6 = f32x4.add(s6, f32x4.pmin(s6, c)); s7 = f32x4.add(s7, f32x4.pmin(s7, c)); s8 = f32x4.add(s8, f32x4.pmin(s8, c));
      s9 = f32x4.add(s9, f32x4.pmin(s9, c)); s10 = f32x4.add(s10, f32x4.pmin(s10, c)); s11 = f32x4.add(s11, f32x4.pmin(s11, c));
    }
    const t = f32x4.add(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)), f32x4.add(f32x4.add(s4, s5), f32x4.add(s6, s7)));
    return <f64>f32x4.extract_lane(f32x4.add(t, f32x4.add(f32x4.add(s8, s9), f32x4.add(s10, s11))), 0);
  }
  const c = f64x2.splat(cap);
  for (let i = 0; i < iterations; i++) {
    s0 = f64x2.add(s0, f64x2.pmin(s0, c)); s1 = f64x2.add(s1, f64x2.pmin(s1, c)); s2 = f64x2.add(s2, f64x2.pmin(s2, c));
    s3 = f64x2.add(s3, f64x2.pmin(s3, c)); s4 = f64x2.add(s4, f64x2.pmin(s4, c)); s5 = f64x2.add(s5, f64x2.pmin(s5, c));
    s6 = f64x2.add(s6, f64x2.pmin(s6, c)); s7 = f64x2.add(s7, f64x2.pmin(s7, c)); s8 = f64x2.add(s8, f64x2.pmin(s8, c));
    s9 = f64x2.add(s9, f64x2.pmin(s9, c)); s10 = f64x2.add(s10, f64x2.pmin(s10, c)); s11 = f64x2.add(s11, f64x2.pmin(s11, c));
  }
  const t = f64x2.add(f64x2.add(f64x2.add(s0, s1), f64x2.add(s2, s3)), f64x2.add(f64x2.add(s4, s5), f64x2.add(s6, s7)));
  return f64x2.extract_lane(f64x2.add(t, f64x2.add(f64x2.add(s8, s9), f64x2.add(s10, s11))), 0);
}
