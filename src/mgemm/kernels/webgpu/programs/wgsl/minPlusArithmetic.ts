// WGSL of the min-plus kernels' arithmetic (SPEC §8, mgemm/minPlusContract.ts): min, add and subtract of
// non-negative values in the run's precision, bit for bit IEEE round-to-nearest-even, in one of two forms.
//
// Why not the GPU's float units: WGSL has no f64, and its f32 (Vulkan's) may flush subnormals to zero. So:
// - `soft`: values are their IEEE bits (a double `vec2<u32>(lo, hi)`, a float `u32`), their sign bit cleared. For
//   non-negative floats the order of values is the order of their bit patterns, so min is an integer min; add and
//   subtract (x − y for x ≥ y ≥ 0) are soft floats, subnormals and overflow to +inf included: exact for any input.
//   Both operands are aligned to the larger one's exponent with 3 guard bits; the bits of the smaller one shifted
//   out ("sticky") are kept as half a unit one bit lower (2·sum + sticky, 2·difference − sticky): the true value
//   lies strictly between two integers of that frame exactly when bits were lost, which no rounding midpoint
//   does (the rounding shift is then ≥ 2), so rounding that value rounds the true one. Clearing the sign bit maps
//   −0 to +0, which changes no result: sums start at +0, and a zero's sign never changes a non-zero sum.
// - `integer`: for integer-valued operands whose sums stay below 2^p (p = 53 double, 24 single; checked on the
//   host, integralOperands.ts), every IEEE operation of §8 is exact, so integer arithmetic (u64 as vec2<u32>, or
//   u32) gives the same bits whatever the order; values are converted on load and sums back to IEEE bits at the end.
//
// Each form defines `MpValue`, `MP_ZERO`, `mpFromBits` (IEEE bits → MpValue), `mpMin`, `mpAdd`, `mpSub` (a ≥ b),
// and `mpResultBits` (the IEEE bits of a sum as two words, the high one 0 for single).
import type { ValuePrecision } from '../../../../minPlusContract.js';
import { U64_WGSL } from './u64.js';

/** Soft floats for any input, or exact integers for integer-valued inputs with bounded sums (see the header). */
export type MinPlusArithmetic = 'soft' | 'integer';

/** 32-bit words of one value of a precision (double 2, single 1). */
export function wordsPerValue(precision: ValuePrecision): 1 | 2 {
  return precision === 'double' ? 2 : 1;
}

/** The WGSL expression of the IEEE bits of the value at word `wordIndex` of `buffer` (an array<u32>). */
export function valueBitsAt(precision: ValuePrecision, buffer: string, wordIndex: string): string {
  return precision === 'double' ? `vec2<u32>(${buffer}[${wordIndex}], ${buffer}[${wordIndex} + 1u])` : `${buffer}[${wordIndex}]`;
}

const SOFT_DOUBLE = /* wgsl */ `
alias MpValue = vec2<u32>;
const MP_ZERO = vec2<u32>(0u, 0u);

fn mpFromBits(bits: vec2<u32>) -> vec2<u32> { return vec2<u32>(bits.x, bits.y & 0x7fffffffu); }
fn mpMin(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, u64Less(b, a)); }
fn mpResultBits(s: vec2<u32>) -> vec2<u32> { return s; }

/** Biased exponent, subnormals (field 0) as 1; significand with its hidden bit where it has one. */
fn nnExp(d: vec2<u32>) -> u32 { return max(d.y >> 20u, 1u); }
fn nnMant(d: vec2<u32>) -> vec2<u32> { return vec2<u32>(d.x, (d.y & 0xfffffu) | select(0u, 0x100000u, d.y >= 0x100000u)); }

/** The double m · 2^(e − 1079) (m < 2^58, e ≥ 1) rounded to nearest even (m odd wherever bits were lost below it). */
fn nnPack(e: u32, m: vec2<u32>) -> vec2<u32> {
  if (u64IsZero(m)) { return MP_ZERO; }
  let bitLength = i32(64u - u64Clz(m));
  let er = max(1, i32(e) + bitLength - 57);
  let shift = er - i32(e) + 4;
  var q: vec2<u32>;
  if (shift <= 0) {
    q = u64Shl(m, u32(-shift));
  } else {
    let s = u32(shift);
    q = u64Shr(m, s);
    let rest = m.x & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    if (rest > half || (rest == half && (q.x & 1u) == 1u)) { q = u64Add(q, vec2<u32>(1u, 0u)); }
  }
  // q has its hidden bit (or none: a subnormal, er = 1), so the exponent field adds to it (a carry included).
  let hi = q.y + (u32(er - 1) << 20u);
  if (hi >= 0x7ff00000u) { return vec2<u32>(0u, 0x7ff00000u); }
  return vec2<u32>(q.x, hi);
}

/** x + y, or x − y for x ≥ y ≥ 0 (subtract). */
fn nnAddSub(x: vec2<u32>, y: vec2<u32>, subtract: bool) -> vec2<u32> {
  let e = nnExp(x);
  let d = min(e - nnExp(y), 60u);
  let a = u64Shl(nnMant(x), 3u);
  let b = u64Shl(nnMant(y), 3u);
  let bShifted = u64Shr(b, d);
  let sticky = vec2<u32>(select(0u, 1u, any(u64Shl(bShifted, d) != b)), 0u);
  let twice = u64Shl(select(u64Add(a, bShifted), u64Sub(a, bShifted), subtract), 1u);
  return nnPack(e, select(u64Add(twice, sticky), u64Sub(twice, sticky), subtract));
}

fn mpAdd(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let swap = u64Less(a, b);
  return nnAddSub(select(a, b, swap), select(b, a, swap), false);
}
fn mpSub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return nnAddSub(a, b, true); }
`;

const SOFT_SINGLE = /* wgsl */ `
alias MpValue = u32;
const MP_ZERO = 0u;

fn mpFromBits(bits: u32) -> u32 { return bits & 0x7fffffffu; }
fn mpMin(a: u32, b: u32) -> u32 { return min(a, b); }
fn mpResultBits(s: u32) -> vec2<u32> { return vec2<u32>(s, 0u); }

fn nnExp(f: u32) -> u32 { return max(f >> 23u, 1u); }
fn nnMant(f: u32) -> u32 { return (f & 0x7fffffu) | select(0u, 0x800000u, f >= 0x800000u); }

/** The float m · 2^(e − 154) (m < 2^29, e ≥ 1) rounded to nearest even (m odd wherever bits were lost below it). */
fn nnPack(e: u32, m: u32) -> u32 {
  if (m == 0u) { return 0u; }
  let bitLength = i32(32u - countLeadingZeros(m));
  let er = max(1, i32(e) + bitLength - 28);
  let shift = er - i32(e) + 4;
  var q: u32;
  if (shift <= 0) {
    q = m << u32(-shift);
  } else {
    let s = u32(shift);
    q = m >> s;
    let rest = m & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    if (rest > half || (rest == half && (q & 1u) == 1u)) { q += 1u; }
  }
  return min(q + (u32(er - 1) << 23u), 0x7f800000u);
}

fn nnAddSub(x: u32, y: u32, subtract: bool) -> u32 {
  let e = nnExp(x);
  let d = min(e - nnExp(y), 28u);
  let a = nnMant(x) << 3u;
  let b = nnMant(y) << 3u;
  let bShifted = b >> d;
  let sticky = select(0u, 1u, (bShifted << d) != b);
  let twice = select(a + bShifted, a - bShifted, subtract) << 1u;
  return nnPack(e, select(twice + sticky, twice - sticky, subtract));
}

fn mpAdd(a: u32, b: u32) -> u32 { return nnAddSub(max(a, b), min(a, b), false); }
fn mpSub(a: u32, b: u32) -> u32 { return nnAddSub(a, b, true); }
`;

const INTEGER_DOUBLE = /* wgsl */ `
alias MpValue = vec2<u32>;
const MP_ZERO = vec2<u32>(0u, 0u);

/** An integer-valued double below 2^53 as a u64 (exponent field ≤ 1075). */
fn mpFromBits(bits: vec2<u32>) -> vec2<u32> {
  let e = (bits.y >> 20u) & 0x7ffu;
  if (e < 1023u) { return MP_ZERO; }
  return u64Shr(vec2<u32>(bits.x, (bits.y & 0xfffffu) | 0x100000u), 1075u - e);
}
fn mpMin(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, u64Less(b, a)); }
fn mpAdd(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return u64Add(a, b); }
fn mpSub(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return u64Sub(a, b); }
/** The double of a u64 below 2^53 (exact). */
fn mpResultBits(v: vec2<u32>) -> vec2<u32> {
  if (u64IsZero(v)) { return MP_ZERO; }
  let bitLength = 64u - u64Clz(v);
  let q = u64Shl(v, 53u - bitLength);
  return vec2<u32>(q.x, q.y + ((1021u + bitLength) << 20u));
}
`;

const INTEGER_SINGLE = /* wgsl */ `
alias MpValue = u32;
const MP_ZERO = 0u;

/** An integer-valued float below 2^24 as a u32 (exponent field ≤ 150). */
fn mpFromBits(bits: u32) -> u32 {
  let e = (bits >> 23u) & 0xffu;
  if (e < 127u) { return 0u; }
  return ((bits & 0x7fffffu) | 0x800000u) >> (150u - e);
}
fn mpMin(a: u32, b: u32) -> u32 { return min(a, b); }
fn mpAdd(a: u32, b: u32) -> u32 { return a + b; }
fn mpSub(a: u32, b: u32) -> u32 { return a - b; }
/** The float of a u32 below 2^24 (exact). */
fn mpResultBits(v: u32) -> vec2<u32> {
  if (v == 0u) { return vec2<u32>(0u, 0u); }
  let bitLength = 32u - countLeadingZeros(v);
  return vec2<u32>((v << (24u - bitLength)) + ((125u + bitLength) << 23u), 0u);
}
`;

/** The WGSL of one arithmetic form for one precision (see the header). */
export function minPlusArithmeticWgsl(precision: ValuePrecision, arithmetic: MinPlusArithmetic): string {
  if (precision === 'double') return `${U64_WGSL}\n${arithmetic === 'soft' ? SOFT_DOUBLE : INTEGER_DOUBLE}`;
  return arithmetic === 'soft' ? SOFT_SINGLE : INTEGER_SINGLE;
}
