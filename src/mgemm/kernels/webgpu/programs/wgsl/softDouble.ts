// WGSL source of a soft-float IEEE-754 double library (WGSL has no f64), bit-exact with JavaScript numbers.
//
// A double is `vec2<u32>(lo, hi)` of its IEEE bits; a 64-bit unsigned integer is `vec2<u32>(lo, hi)` too.
// Every operation rounds to nearest, ties to even, as IEEE (and JavaScript) does.
// Preconditions (the callers keep inside them; the engine falls back to the CPU otherwise):
// - operands are ±0 or finite normal numbers (no subnormals, infinities or NaN);
// - results stay normal: a result below 2^-1022 is flushed to a signed zero and one above 2^1024 becomes
//   an infinity, where IEEE would give a subnormal or the same infinity;
// - `sdDiv` needs a non-zero divisor.
// WGSL has no 32×32→64 multiply: sdMul multiplies significands in 14-bit limbs (column sums stay below 2^32,
// carried once).

import { U64_WGSL } from './u64.js';

export const SOFT_DOUBLE_WGSL = /* wgsl */ `${U64_WGSL}
const SD_SIGN = 0x80000000u;

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

/**
 * A multiplication operand: the significand (hidden bit included, < 2^53) as four 14-bit limbs, least
 * significant first (the top limb has 11 bits), and the double's high word (sign, exponent). A factor used by
 * many products is split once (sdFactor).
 */
struct SdFactor {
  limbs: vec4<u32>,
  high: u32,
}

fn sdFactor(d: vec2<u32>) -> SdFactor {
  return SdFactor(
    vec4<u32>(d.x & 0x3fffu, (d.x >> 14u) & 0x3fffu, ((d.x >> 28u) | (d.y << 4u)) & 0x3fffu, ((d.y >> 10u) & 0x3ffu) | 0x400u),
    d.y);
}

/**
 * The double sign(ah ^ bh) · P · 2^(ea + eb − 2150) of a significand product P = m_a · m_b in [2^104, 2^106),
 * rounded to nearest, ties to even. P is given as limb columns: P = c6·2^84 + c5·2^70 + c4·2^56 + c3·2^42 + L
 * (columns not yet carried, each < 2^31; L < 2^42, the carries out of it already in c3), lowBits non-zero
 * iff L is. A zero operand (exponent field 0) gives a signed zero; a result below 2^-1022 a signed zero and
 * one at or above 2^1024 a signed infinity (the library's preconditions).
 */
fn sdRoundProduct(ah: u32, bh: u32, c3: u32, c4In: u32, c5In: u32, c6: u32, lowBits: u32) -> vec2<u32> {
  // P >> 42 as 64 bits (leading bit 63 or 62): the columns' overlapping parts add up once c3 and c4 are
  // carried. L's sticky bit is or-ed into bit 0, below the rounding bit (9 or 10): it only decides exact halves.
  let c4 = c4In + (c3 >> 14u);
  let c5 = c5In + (c4 >> 14u);
  let lo = ((c3 & 0x3fffu) + (c4 << 14u) + (c5In << 28u)) | min(lowBits, 1u);
  let hi = (c5 >> 4u) + (c6 << 10u);
  // Keep the top 53 bits (shift 11 or 10): adding half − 1 + (the kept lowest bit) carries into the kept bits
  // exactly when IEEE rounds up.
  let top = hi >> 31u;
  let shift = 10u + top;
  let bias = ((0x1ffu << top) | top) + ((lo >> shift) & 1u);
  let loBiased = lo + bias;
  let hiBiased = hi + select(0u, 1u, loBiased < lo);
  // q in [2^52, 2^53]; 2^53 (rounded up out of the significand) carries into the exponent when packed.
  let q = vec2<u32>((loBiased >> shift) | (hiBiased << (22u - top)), hiBiased >> shift);
  let sign = (ah ^ bh) & SD_SIGN;
  let ea = ah & 0x7ff00000u;
  let eb = bh & 0x7ff00000u;
  // The exponent fields add in place (below 2^32): t = (result's field + 1024) · 2^20 + fraction, q's hidden
  // bit (and its carry when q = 2^53) raising the field.
  let t = ea + eb + (top << 20u) + q.y;
  let flushed = min(ea, eb) == 0u || t < (1025u << 20u);
  let overflow = t >= (3071u << 20u);
  return vec2<u32>(
    select(q.x, 0u, flushed || overflow),
    select(select(sign | (t - (1024u << 20u)), sign | 0x7ff00000u, overflow), sign, flushed));
}

/** a · b for a factor b (16 limb products). */
fn sdMulFactor(a: vec2<u32>, b: SdFactor) -> vec2<u32> {
  let x = sdFactor(a).limbs;
  let y = b.limbs;
  // Limb products are < 2^28 and a column holds at most 4 of them: the sums below cannot wrap.
  let c0 = x.x * y.x;
  var c1 = x.x * y.y + x.y * y.x;
  var c2 = x.x * y.z + x.y * y.y + x.z * y.x;
  var c3 = x.x * y.w + x.y * y.z + x.z * y.y + x.w * y.x;
  c1 += c0 >> 14u;
  c2 += c1 >> 14u;
  c3 += c2 >> 14u;
  return sdRoundProduct(a.y, b.high, c3,
    x.y * y.w + x.z * y.z + x.w * y.y,
    x.z * y.w + x.w * y.z,
    x.w * y.w,
    (c0 | c1 | c2) & 0x3fffu);
}

/** a · b. */
fn sdMul(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  return sdMulFactor(a, sdFactor(b));
}

/**
 * a · b for a factor b whose significand has at most 11 bits (limbs x, y, z zero), such as 4.5 or 4: four limb
 * products. Callers check sdFactorIsShort (once, for a factor shared by many products).
 */
fn sdMulShortFactor(a: vec2<u32>, b: SdFactor) -> vec2<u32> {
  let x = sdFactor(a).limbs;
  let y = b.limbs.w;
  return sdRoundProduct(a.y, b.high, x.x * y, x.y * y, x.z * y, x.w * y, 0u);
}

fn sdFactorIsShort(b: SdFactor) -> bool {
  return (b.limbs.x | b.limbs.y | b.limbs.z) == 0u;
}

/**
 * a · b by the short form when bIsShort (= sdFactorIsShort(b)). Meant for a b shared by all threads (a run
 * constant): then every thread takes the same branch.
 */
fn sdMulSharedFactor(a: vec2<u32>, b: SdFactor, bIsShort: bool) -> vec2<u32> {
  if (bIsShort) { return sdMulShortFactor(a, b); }
  return sdMulFactor(a, b);
}

/** a · double(r) for a u32 r (exactly a · sdFromU32(r)): r's significand has limb x zero, 12 limb products. */
fn sdMulU32(a: SdFactor, r: u32) -> vec2<u32> {
  // r's leading bit from the exponent of an exact float32 (r, or r >> 8 from 2^24 on): cheaper than
  // countLeadingZeros, which the SPIR-V translation expands into a 5-step binary search.
  let wide = r >= 0x1000000u;
  let exponentField = (bitcast<u32>(f32(select(r, r >> 8u, wide))) >> 23u) + select(0u, 8u, wide);
  // 158 − field = the leading zeros of r (shifts take their amount mod 32, harmless for r = 0).
  let normalized = r << (158u - exponentField);
  // The significand r · 2^(leading zeros + 21) has bits 21..52 = the normalized r: limbs y, z, w.
  let y1 = (normalized << 7u) & 0x3fffu;
  let y2 = (normalized >> 7u) & 0x3fffu;
  let y3 = normalized >> 21u;
  // The double's exponent field is 1054 − leading zeros = field + 896.
  let rHigh = select(0u, (exponentField + 896u) << 20u, r != 0u);
  let x = a.limbs;
  let c1 = x.x * y1;
  let c2 = x.x * y2 + x.y * y1 + (c1 >> 14u);
  let c3 = x.x * y3 + x.y * y2 + x.z * y1 + (c2 >> 14u);
  return sdRoundProduct(a.high, rHigh, c3,
    x.y * y3 + x.z * y2 + x.w * y1,
    x.z * y3 + x.w * y2,
    x.w * y3,
    (c1 | c2) & 0x3fffu);
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

/** The double nearest a u64 (ties to even; exact below 2^53). */
fn sdFromU64(x: vec2<u32>) -> vec2<u32> {
  if (u64IsZero(x)) { return vec2<u32>(0u, 0u); }
  let lz = u64Clz(x);
  return sdRoundPack(0u, 1086 - i32(lz), u64Shl(x, lz), false);
}

/** The 64-bit product a · b of two u32s, from 16-bit halves. */
fn u64MulU32(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  // The middle products may sum past 2^32: their carry goes to bit 48 of the high word.
  let mid = a0 * b1;
  let midSum = mid + a1 * b0;
  let midCarry = select(0u, 0x10000u, midSum < mid);
  let lo = a0 * b0;
  let loSum = lo + (midSum << 16u);
  return vec2<u32>(loSum, a1 * b1 + (midSum >> 16u) + midCarry + select(0u, 1u, loSum < lo));
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
  if (e >= 1) {
    // The top 23 fraction bits, rounded by the 29 below them: dropped + (last kept bit) > half rounds up
    // (ties to even). Rounding up out of the fraction carries into the exponent field, as IEEE's does, and an
    // exponent field of 255 (clamped there first) is the infinity.
    let fraction = ((d.y & 0xfffffu) << 3u) | (d.x >> 29u);
    let roundUp = select(0u, 1u, (d.x & 0x1fffffffu) + (fraction & 1u) > 0x10000000u);
    return sign | min(((min(u32(e), 255u) << 23u) | fraction) + roundUp, 0x7f800000u);
  }
  // A float32 subnormal (q · 2^-149); rounding up to 2^23 gives the smallest normal's bits.
  return sign | u64RoundShift(sdMant(d), u32(30 - e));
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
