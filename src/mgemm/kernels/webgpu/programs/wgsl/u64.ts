// WGSL of unsigned 64-bit (and 128-bit) integer helpers on u32 words: a u64 is `vec2<u32>(lo, hi)`. Shared by the
// soft-float double library (softDouble.ts) and the min-plus kernels' soft arithmetic (softNonNegative.ts).

export const U64_WGSL = /* wgsl */ `
fn u64Add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

/** a − b for a ≥ b. */
fn u64Sub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn u64Less(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn u64IsZero(a: vec2<u32>) -> bool {
  return (a.x | a.y) == 0u;
}

/** a << s for s < 64 (WGSL masks shift amounts to 5 bits, so whole-word shifts are cases). */
fn u64Shl(a: vec2<u32>, s: u32) -> vec2<u32> {
  if (s == 0u) { return a; }
  if (s >= 32u) { return vec2<u32>(0u, a.x << (s - 32u)); }
  return vec2<u32>(a.x << s, (a.y << s) | (a.x >> (32u - s)));
}

/** a >> s for s < 64. */
fn u64Shr(a: vec2<u32>, s: u32) -> vec2<u32> {
  if (s == 0u) { return a; }
  if (s >= 32u) { return vec2<u32>(a.y >> (s - 32u), 0u); }
  return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}

fn u64Clz(a: vec2<u32>) -> u32 {
  if (a.y != 0u) { return countLeadingZeros(a.y); }
  return 32u + countLeadingZeros(a.x);
}

/** 128-bit sum (no overflow past 2^128 by the callers' bounds). */
fn u128Add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let lo = u64Add(a.xy, b.xy);
  let carry = select(0u, 1u, u64Less(lo, a.xy));
  let hi = u64Add(u64Add(a.zw, b.zw), vec2<u32>(carry, 0u));
  return vec4<u32>(lo, hi);
}
`;
