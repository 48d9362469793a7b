// WGSL source of a soft-float IEEE-754 double library (WGSL has no f64), bit-exact with JavaScript numbers.
//
// A double is `vec2<u32>(lo, hi)` of its IEEE bits; a 64-bit unsigned integer is `vec2<u32>(lo, hi)` too.
// Every operation rounds to nearest, ties to even, as IEEE (and JavaScript) does.
// Preconditions (the callers keep inside them; the engine falls back to the CPU otherwise):
// - operands are ±0 or finite normal numbers (no subnormals, infinities or NaN);
// - results stay normal: a result below 2^-1022 is flushed to a signed zero and one above 2^1024 becomes
//   an infinity, where IEEE would give a subnormal or the same infinity;
// - `sdDiv` needs a non-zero divisor.
// Products are built from 16-bit halves (WGSL has no 32×32→64 multiply).

export const SOFT_DOUBLE_WGSL = /* wgsl */ `
const SD_SIGN = 0x80000000u;

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

/** The full 64-bit product of two u32, from 16-bit halves. */
fn u32MulWide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let ll = a0 * b0;
  let lh = a0 * b1;
  let hl = a1 * b0;
  let hh = a1 * b1;
  let mid = lh + hl;
  let midCarry = select(0u, 0x10000u, mid < lh);
  let lo = ll + (mid << 16u);
  let loCarry = select(0u, 1u, lo < ll);
  return vec2<u32>(lo, hh + (mid >> 16u) + midCarry + loCarry);
}

/** The full 128-bit product of two u64 as 32-bit words, least significant first. */
fn u64MulWide(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
  let p00 = u32MulWide(a.x, b.x);
  let p01 = u32MulWide(a.x, b.y);
  let p10 = u32MulWide(a.y, b.x);
  let p11 = u32MulWide(a.y, b.y);
  let mid = u64Add(p01, p10);
  let midCarry = select(0u, 1u, u64Less(mid, p01));
  let w1 = p00.y + mid.x;
  let w1Carry = select(0u, 1u, w1 < p00.y);
  let high = u64Add(u64Add(p11, vec2<u32>(mid.y, midCarry)), vec2<u32>(w1Carry, 0u));
  return vec4<u32>(p00.x, w1, high.x, high.y);
}

/** 128-bit sum (no overflow past 2^128 by the callers' bounds). */
fn u128Add(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
  let lo = u64Add(a.xy, b.xy);
  let carry = select(0u, 1u, u64Less(lo, a.xy));
  let hi = u64Add(u64Add(a.zw, b.zw), vec2<u32>(carry, 0u));
  return vec4<u32>(lo, hi);
}

fn sdIsZero(d: vec2<u32>) -> bool {
  return (d.y & 0x7ff00000u) == 0u;
}

fn sdExp(d: vec2<u32>) -> u32 {
  return (d.y >> 20u) & 0x7ffu;
}

/** The 53-bit significand with its hidden bit. */
fn sdMant(d: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(d.x, (d.y & 0xfffffu) | 0x100000u);
}

/**
 * The double sign · m · 2^(e − 1086) (e biased, m with bit 63 set), rounded to 53 bits (ties to even);
 * sticky says bits below m were lost (they only break ties).
 */
fn sdRoundPack(sign: u32, e: i32, m: vec2<u32>, sticky: bool) -> vec2<u32> {
  let low = m.x & 0x7ffu;
  var q = u64Shr(m, 11u);
  var exponent = e;
  if (low > 0x400u || (low == 0x400u && (sticky || (q.x & 1u) == 1u))) {
    q = u64Add(q, vec2<u32>(1u, 0u));
    if (q.y == 0x200000u) {
      q = vec2<u32>(0u, 0x100000u);
      exponent += 1;
    }
  }
  if (exponent <= 0) { return vec2<u32>(0u, sign); }
  if (exponent >= 2047) { return vec2<u32>(0u, sign | 0x7ff00000u); }
  return vec2<u32>(q.x, sign | (u32(exponent) << 20u) | (q.y & 0xfffffu));
}

/** a · b. */
fn sdMul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let sign = (a.y ^ b.y) & SD_SIGN;
  if (sdIsZero(a) || sdIsZero(b)) { return vec2<u32>(0u, sign); }
  // Significands moved to bit 63: the product's leading bit is 126 or 127.
  let p = u64MulWide(u64Shl(sdMant(a), 11u), u64Shl(sdMant(b), 11u));
  var e = i32(sdExp(a)) + i32(sdExp(b)) - 1023;
  var high = p.zw;
  var low = p.xy;
  if ((p.w & SD_SIGN) != 0u) {
    e += 1;
  } else {
    high = vec2<u32>((high.x << 1u) | (low.y >> 31u), (high.y << 1u) | (high.x >> 31u));
    low = u64Shl(low, 1u);
  }
  return sdRoundPack(sign, e, high, !u64IsZero(low));
}

/** a + b; an exact zero sum is +0 (−0 only for −0 + −0). */
fn sdAdd(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  if (sdIsZero(b)) {
    if (sdIsZero(a)) { return vec2<u32>(0u, a.y & b.y & SD_SIGN); }
    return a;
  }
  if (sdIsZero(a)) { return b; }
  var x = a;
  var y = b;
  if (u64Less(vec2<u32>(a.x, a.y & 0x7fffffffu), vec2<u32>(b.x, b.y & 0x7fffffffu))) {
    x = b;
    y = a;
  }
  let ex = sdExp(x);
  let d = ex - sdExp(y);
  // 10 guard bits below the significands, bit 63 free for the carry; bits shifted out of y stick in bit 0.
  let mx = u64Shl(sdMant(x), 10u);
  var my = u64Shl(sdMant(y), 10u);
  if (d >= 64u) {
    my = vec2<u32>(1u, 0u);
  } else if (d > 0u) {
    let shifted = u64Shr(my, d);
    let lost = any(u64Shl(shifted, d) != my);
    my = vec2<u32>(shifted.x | select(0u, 1u, lost), shifted.y);
  }
  let sign = x.y & SD_SIGN;
  var s: vec2<u32>;
  if (((x.y ^ y.y) & SD_SIGN) == 0u) {
    s = u64Add(mx, my);
  } else {
    s = u64Sub(mx, my);
    if (u64IsZero(s)) { return vec2<u32>(0u, 0u); }
  }
  let lz = u64Clz(s);
  return sdRoundPack(sign, i32(ex) + 1 - i32(lz), u64Shl(s, lz), false);
}

/** a − b. */
fn sdSub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return sdAdd(a, vec2<u32>(b.x, b.y ^ SD_SIGN));
}

/** a / b for b ≠ 0, by restoring division of the significands (55 quotient bits, then a sticky remainder). */
fn sdDiv(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let sign = (a.y ^ b.y) & SD_SIGN;
  if (sdIsZero(a)) { return vec2<u32>(0u, sign); }
  let mb = sdMant(b);
  var r = sdMant(a);
  var e = i32(sdExp(a)) - i32(sdExp(b)) + 1023;
  if (u64Less(r, mb)) {
    r = u64Shl(r, 1u);
    e -= 1;
  }
  var q = vec2<u32>(0u, 0u);
  for (var k = 0u; k < 55u; k++) {
    q = u64Shl(q, 1u);
    if (!u64Less(r, mb)) {
      r = u64Sub(r, mb);
      q.x = q.x | 1u;
    }
    r = u64Shl(r, 1u);
  }
  return sdRoundPack(sign, e, u64Shl(q, 9u), !u64IsZero(r));
}

/** The double of a u32 (exact). */
fn sdFromU32(x: u32) -> vec2<u32> {
  if (x == 0u) { return vec2<u32>(0u, 0u); }
  let lz = countLeadingZeros(x);
  return sdRoundPack(0u, 1054 - i32(lz), vec2<u32>(0u, x << lz), false);
}

/** The double of a float32's bits (exact; float32 subnormals included). */
fn sdFromF32Bits(b: u32) -> vec2<u32> {
  let sign = b & SD_SIGN;
  let ef = (b >> 23u) & 0xffu;
  let mant = b & 0x7fffffu;
  if (ef == 0u) {
    if (mant == 0u) { return vec2<u32>(0u, sign); }
    let d = sdFromU32(mant);
    return vec2<u32>(d.x, sign | (d.y - (149u << 20u)));
  }
  return vec2<u32>(mant << 29u, sign | ((ef + 896u) << 20u) | (mant >> 3u));
}

/** m / 2^s rounded to nearest, ties to even, for results below 2^32. */
fn u64RoundShift(m: vec2<u32>, s: u32) -> u32 {
  if (s == 0u) { return m.x; }
  if (s > 63u) { return 0u; }
  let q = u64Shr(m, s);
  let rem = u64Sub(m, u64Shl(q, s));
  let half = u64Shl(vec2<u32>(1u, 0u), s - 1u);
  var r = q.x;
  if (u64Less(half, rem) || (all(rem == half) && (r & 1u) == 1u)) { r += 1u; }
  return r;
}

/** The float32 bits of a double rounded to nearest, ties to even (JavaScript's Math.fround), subnormals included. */
fn sdToF32Bits(d: vec2<u32>) -> u32 {
  let sign = d.y & SD_SIGN;
  if (sdIsZero(d)) { return sign; }
  let e = i32(sdExp(d)) - 896;
  let m = sdMant(d);
  if (e >= 1) {
    var ef = u32(e);
    var mant = u64RoundShift(m, 29u);
    if (mant == 0x1000000u) {
      ef += 1u;
      mant = 0x800000u;
    }
    if (ef >= 255u) { return sign | 0x7f800000u; }
    return sign | (ef << 23u) | (mant & 0x7fffffu);
  }
  // A float32 subnormal (q · 2^-149); rounding up to 2^23 gives the smallest normal's bits.
  return sign | u64RoundShift(m, u32(30 - e));
}

/** floor(d · 2^56) for 0 ≤ d < 16, a 60-bit integer: the checksum's floor((d/16) · 2^60). */
fn sdFloorTimes2p56(d: vec2<u32>) -> vec2<u32> {
  if (sdIsZero(d)) { return vec2<u32>(0u, 0u); }
  let shift = i32(sdExp(d)) - 1019;
  let m = sdMant(d);
  if (shift >= 0) { return u64Shl(m, u32(shift)); }
  if (shift <= -64) { return vec2<u32>(0u, 0u); }
  return u64Shr(m, u32(-shift));
}

/** a < b for non-negative doubles (+0 included): their bits order like integers. */
fn sdLessNonNegative(a: vec2<u32>, b: vec2<u32>) -> bool {
  return u64Less(a, b);
}
`;
