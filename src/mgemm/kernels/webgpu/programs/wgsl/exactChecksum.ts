// WGSL helpers shared by the device finalize programs: SPEC §5's checksum weight rv of an entry from its uid
// mod 714025, the exact per-thread sum Σ rv·iv, and core/thresholds.ts comparisons on float32 bits. Needs
// wgsl/softDouble.ts (u128Add).

import { randomize, RANDOMIZE_MAX } from '../../../../../core/randomize.js';

/**
 * Terms rv·iv that checksumAddTerm may add between two checksumFold calls: a term adds below 4·2^24 to each
 * 12-bit column of the thread's sum (at most four limb products of 12 × 12 bits), and a column holds 2^32.
 */
export const CHECKSUM_TERMS_PER_FOLD = 64;

/** Entry bits of a pair (4 entries) or triple (8) that checksumResiduesPlus adds to its first uid: below this. */
const MAX_ENTRY_BITS = 8;

/**
 * Checksum weight rv = randomize(uid + OFFSET_LOW) + 714025·randomize(uid + OFFSET_HIGH) from uid mod 714025, and
 * the thread's sum Σ rv·iv kept as eight 12-bit limb columns that take limb products without carries (no 128-bit
 * product per entry); checksumFold carries them into a 128-bit sum.
 * The two randomize residues are computed once per pair or triple (checksumResidues of its first uid, five
 * remainders); an entry's uid adds its entry bits d < 8, which adds 4096·d < M to each residue
 * (randomize(x + d) ≡ randomize(x) + 4096·d): one conditional subtraction instead of five remainders per entry.
 */
export function checksumWeightWgsl(): string {
  // randomize(x) depends on x mod M only (for x < 2^52, see core/randomize.ts); the offsets enter as residues.
  const offsetLow = 956158765 % RANDOMIZE_MAX;
  const offsetHigh = 842467637 % RANDOMIZE_MAX;
  if (randomize(0) !== 150889 || randomize(1) !== 150889 + 4096) throw new Error('randomize changed: update the WGSL checksum weight');
  if (4096 * (MAX_ENTRY_BITS - 1) >= RANDOMIZE_MAX) throw new Error('checksumResiduesPlus needs 4096·d < M');
  // rv = M·high + low with M = mHigh·2^12 + mLow; high, low < M < 2^20.
  const mHigh = Math.floor(RANDOMIZE_MAX / 4096);
  const mLow = RANDOMIZE_MAX % 4096;
  if (RANDOMIZE_MAX >= 2 ** 20) throw new Error('the checksum weight limbs assume M < 2^20');
  return `
const RMOD = ${RANDOMIZE_MAX}u;
/** x·y mod M for x, y < M < 2^20, in u32: y split into 10-bit halves. */
fn mulMod(x: u32, y: u32) -> u32 {
  return (((x * (y >> 10u)) % RMOD) * 1024u + x * (y & 1023u)) % RMOD;
}
fn randomizeResidue(x: u32) -> u32 {
  return (4096u * x + 150889u) % RMOD;
}
/** (randomize(uid + OFFSET_LOW), randomize(uid + OFFSET_HIGH)) of the uid ≡ uidMod (mod M). */
fn checksumResidues(uidMod: u32) -> vec2<u32> {
  return vec2<u32>(randomizeResidue((uidMod + ${offsetLow}u) % RMOD), randomizeResidue((uidMod + ${offsetHigh}u) % RMOD));
}
/** checksumResidues of uid + d from those of uid, for entry bits d < ${MAX_ENTRY_BITS}. */
fn checksumResiduesPlus(base: vec2<u32>, d: u32) -> vec2<u32> {
  let sum = base + vec2<u32>(4096u * d);
  return select(sum, sum - vec2<u32>(RMOD), sum >= vec2<u32>(RMOD));
}
/** rv = M·high + low of residues (low, high), < 2^40, as 12-bit limbs (least significant first; the last < 2^4). */
fn checksumWeight(residues: vec2<u32>) -> vec4<u32> {
  let low = residues.x;
  let high = residues.y;
  // M·high + low with high and low split at bit 12: column sums below 2^23 before their carries.
  let a0 = ${mLow}u * (high & 0xfffu) + (low & 0xfffu);
  let a1 = ${mLow}u * (high >> 12u) + ${mHigh}u * (high & 0xfffu) + (low >> 12u) + (a0 >> 12u);
  let a2 = ${mHigh}u * (high >> 12u) + (a1 >> 12u);
  return vec4<u32>(a0 & 0xfffu, a1 & 0xfffu, a2 & 0xfffu, a2 >> 12u);
}

/** The thread's Σ rv·iv since its last fold: column k (weight 2^(12k)) of columns 0–3 in low, 4–7 in high. */
var<private> checksumColumnsLow: vec4<u32>;
var<private> checksumColumnsHigh: vec4<u32>;

/** Adds rv·iv to the columns: rv from checksumWeight, iv < 2^60 (five 12-bit limbs). */
fn checksumAddTerm(rv: vec4<u32>, iv: vec2<u32>) {
  let i0 = iv.x & 0xfffu;
  let i1 = (iv.x >> 12u) & 0xfffu;
  let i2 = ((iv.x >> 24u) | (iv.y << 8u)) & 0xfffu;
  let i3 = (iv.y >> 4u) & 0xfffu;
  let i4 = iv.y >> 16u;
  checksumColumnsLow += vec4<u32>(
    rv.x * i0,
    rv.x * i1 + rv.y * i0,
    rv.x * i2 + rv.y * i1 + rv.z * i0,
    rv.x * i3 + rv.y * i2 + rv.z * i1 + rv.w * i0);
  checksumColumnsHigh += vec4<u32>(
    rv.x * i4 + rv.y * i3 + rv.z * i2 + rv.w * i1,
    rv.y * i4 + rv.z * i3 + rv.w * i2,
    rv.z * i4 + rv.w * i3,
    rv.w * i4);
}

/** sum + the columns' value (exact: at most ${CHECKSUM_TERMS_PER_FOLD} terms since the last fold), the columns emptied. */
fn checksumFold(sum: vec4<u32>) -> vec4<u32> {
  let c0 = checksumColumnsLow.x;
  let c1 = checksumColumnsLow.y + (c0 >> 12u);
  let c2 = checksumColumnsLow.z + (c1 >> 12u);
  let c3 = checksumColumnsLow.w + (c2 >> 12u);
  let c4 = checksumColumnsHigh.x + (c3 >> 12u);
  let c5 = checksumColumnsHigh.y + (c4 >> 12u);
  let c6 = checksumColumnsHigh.z + (c5 >> 12u);
  let c7 = checksumColumnsHigh.w + (c6 >> 12u);
  checksumColumnsLow = vec4<u32>(0u);
  checksumColumnsHigh = vec4<u32>(0u);
  return u128Add(sum, vec4<u32>(
    (c0 & 0xfffu) | ((c1 & 0xfffu) << 12u) | (c2 << 24u),
    ((c2 & 0xfffu) >> 8u) | ((c3 & 0xfffu) << 4u) | ((c4 & 0xfffu) << 16u) | (c5 << 28u),
    ((c5 & 0xfffu) >> 4u) | ((c6 & 0xfffu) << 8u) | (c7 << 20u),
    c7 >> 12u));
}`;
}

/**
 * `above(bits, t)`: float32 > t for t ≥ 0 given as the bits of the largest float32 ≤ t; `positive(bits)`: > 0. A NaN
 * (bits above the infinity's, or negative) is neither, as in JavaScript.
 */
export const FLOAT32_THRESHOLD_WGSL = `
/** fround(v) > t for t ≥ 0, as bits: a non-negative float32, not NaN, above the largest float32 ≤ t. */
fn above(bits: u32, thresholdBits: u32) -> bool {
  return bits > thresholdBits && bits <= 0x7f800000u;
}
fn positive(bits: u32) -> bool {
  return bits != 0u && bits <= 0x7f800000u;
}`;

/** Workgroup memory of the partial-sum reduction: each thread's 128-bit sum Σ rv·iv and its (entries, zeros). */
export function checksumPartialDeclarations(numThreads: number): string {
  return `var<workgroup> wgSum: array<vec4<u32>, ${numThreads}>;
var<workgroup> wgCounts: array<vec2<u32>, ${numThreads}>;`;
}

/**
 * The end of a finalize program: sums every thread's `sum`, `entries` and `zeros` over the workgroup (a tree
 * reduction; needs `li` and `NUM_THREADS`, a power of 2) and has thread 0 write [S as 4 words, entries, zeros]
 * at `partials[partialWords · (partialIndex)]`. The host adds the partials exactly (BigInt).
 */
export function checksumPartialWgsl(partialIndex: string, partialWords: number): string {
  return `  wgSum[li] = sum;
  wgCounts[li] = vec2<u32>(entries, zeros);
  workgroupBarrier();
  for (var stride = NUM_THREADS / 2u; stride > 0u; stride = stride / 2u) {
    if (li < stride) {
      wgSum[li] = u128Add(wgSum[li], wgSum[li + stride]);
      wgCounts[li] = wgCounts[li] + wgCounts[li + stride];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    let at = ${partialWords}u * (${partialIndex});
    let total = wgSum[0];
    partials[at] = total.x;
    partials[at + 1u] = total.y;
    partials[at + 2u] = total.z;
    partials[at + 3u] = total.w;
    partials[at + 4u] = wgCounts[0].x;
    partials[at + 5u] = wgCounts[0].y;
  }`;
}
