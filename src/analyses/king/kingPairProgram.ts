// KING-robust kinship as a device pair-count program (mgemm/pairFinalize.ts PairValueProgram with `pairCounts`), the
// device form of kingCounts.ts's host finalize: each pair's four counts scaled by 2^-22 (exact) go to the checksum and
// the records, and its kinship — plink2's order of operations, integers exact in u32, then one division and one
// subtraction in soft double, so the host's bits — decides the records and fills a dense matrix. A pair without a
// heterozygous call in common gives the host's −inf (0.5 − n/0) or NaN (0/0).
import type { PairValueProgram } from '../../mgemm/index.js';
import type { PairValues } from '../index.js';
import { KING_TERM_GROUPS } from './kingCounts.js';

/** The exponent of KING_COUNT_SCALE (2^-22), as it lowers a double's exponent field. */
const COUNT_SCALE_EXPONENT = 22;

const WGSL = `
/** (hethet, hetHom, homHet, ibs0) from the term groups [HET HET], [opposite HOMs], [HET PRESENT], [PRESENT HET]. */
fn kingCounts(t: u32) -> vec4<u32> {
  let g = u.groupWords;
  let hethet = tallies[t];
  return vec4<u32>(hethet, tallies[2u * g + t] - hethet, tallies[3u * g + t] - hethet, tallies[g + t]);
}
/** count · 2^-22 (exact: counts < 2^24, so the exponent stays far above the normal range's floor). */
fn scaledCount(n: u32) -> vec2<u32> {
  let d = sdFromU32(n);
  if (n == 0u) { return d; }
  return vec2<u32>(d.x, d.y - (${COUNT_SCALE_EXPONENT}u << 20u));
}
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 4> {
  let n = kingCounts(t);
  // kingCounts.ts KING_ENTRY's order: hethet, hetHom, homHet, ibs0.
  return array<vec2<u32>, 4>(scaledCount(n.x), scaledCount(n.y), scaledCount(n.z), scaledCount(n.w));
}
/** kingCounts.ts kingKinship: 0.5 − (4·ibs0 + hetHom + homHet) / (4·(hethet + min(hetHom, homHet))). */
fn pairCountValue(vi: u32, vj: u32, t: u32) -> vec2<u32> {
  let n = kingCounts(t);
  let numerator = 4u * n.w + n.y + n.z;
  let smallerHet = n.x + min(n.y, n.z);
  // JavaScript's 0.5 − n/0: −inf for n > 0, NaN (its canonical bits) for 0/0.
  if (smallerHet == 0u) { return select(vec2<u32>(0u, 0xfff00000u), vec2<u32>(0u, 0x7ff80000u), numerator == 0u); }
  return sdSub(vec2<u32>(0u, 0x3fe00000u), sdDiv(sdFromU32(numerator), sdFromU32(4u * smallerHet)));
}`;

/** KING's device program: four count entries per pair, its kinship as the pair's value. */
export const KING_PAIR_PROGRAM: PairValueProgram = {
  cacheKey: 'king/counts', wgsl: WGSL, setup: '', entryBits: [0, 1, 2, 3], vectorWords: 0, constantNames: [], pairCounts: true,
};

/** KING's pair values on the device: no per-vector words or run constants (counts < 2^24: KING_MAX_FIELDS). */
export function kingPairValues(): PairValues {
  return { program: KING_PAIR_PROGRAM, constants: [], termGroups: KING_TERM_GROUPS, wordsOf: () => new Uint32Array(0) };
}
