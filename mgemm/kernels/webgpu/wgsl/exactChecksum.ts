// WGSL helpers shared by the device finalize programs: SPEC §5's checksum weight rv of an entry from its uid
// mod 714025, and core/thresholds.ts comparisons on float32 bits. Needs wgsl/softDouble.ts (u64Add, u32MulWide).

import { randomize, RANDOMIZE_MAX } from '../../../../src/core/randomize.js';

/** Checksum weight rv = randomize(uid + OFFSET_LOW) + 714025·randomize(uid + OFFSET_HIGH) from uid mod 714025. */
export function checksumWeightWgsl(): string {
  // randomize(x) depends on x mod M only (for x < 2^52, see core/randomize.ts); the offsets enter as residues.
  const offsetLow = 956158765 % RANDOMIZE_MAX;
  const offsetHigh = 842467637 % RANDOMIZE_MAX;
  if (randomize(0) !== 150889) throw new Error('randomize changed: update the WGSL checksum weight');
  return `
const RMOD = ${RANDOMIZE_MAX}u;
/** x·y mod M for x, y < M < 2^20, in u32: y split into 10-bit halves. */
fn mulMod(x: u32, y: u32) -> u32 {
  return (((x * (y >> 10u)) % RMOD) * 1024u + x * (y & 1023u)) % RMOD;
}
fn randomizeResidue(x: u32) -> u32 {
  return (4096u * x + 150889u) % RMOD;
}
/** rv of the entry with uid ≡ uidMod (mod M), < 2^40. */
fn checksumWeight(uidMod: u32) -> vec2<u32> {
  let low = randomizeResidue((uidMod + ${offsetLow}u) % RMOD);
  let high = randomizeResidue((uidMod + ${offsetHigh}u) % RMOD);
  return u64Add(u32MulWide(RMOD, high), vec2<u32>(low, 0u));
}`;
}

/** `above(bits, t)`: float32 > t for t ≥ 0 given as the bits of the largest float32 ≤ t; `positive(bits)`: > 0. */
export const FLOAT32_THRESHOLD_WGSL = `
/** fround(v) > t for t ≥ 0, as bits: a non-negative float32 above the largest float32 ≤ t. */
fn above(bits: u32, thresholdBits: u32) -> bool {
  return (bits & SD_SIGN) == 0u && bits > thresholdBits;
}
fn positive(bits: u32) -> bool {
  return (bits & SD_SIGN) == 0u && bits != 0u;
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
