// Genotype distances between individuals (vectors = individuals, fields = SNPs, `prepare --individuals`): the IBS
// counts of each pair on the engine's popcount GEMM, and the distances made of them.
//
// Per individual, from SPEC §1's codes (10 always missing: distances are taken over the SNPs both individuals called,
// as PLINK 1.9's --distance does): HET (01), HOM1 (11), HOM2 (00) and HOM (HOM1 | HOM2), all 0 for a missing call,
// so that every product below counts only SNPs both called (and pad fields, code 00, count in none: HET and HOM1 are
// 0 there). With g the 0/1/2 dosage:
//   ibs1 = Σ HET_i HOM_j + Σ HOM_i HET_j      (|g_i − g_j| = 1)
//   ibs0 = Σ HOM1_i HOM2_j + Σ HOM2_i HOM1_j  (|g_i − g_j| = 2)
// four plane products. The allele-count distance Σ|g_i − g_j| = ibs1 + 2·ibs0 (the numerator of PLINK 1.9's
// --distance, before its missing-call rescaling) and the squared Euclidean distance Σ(g_i − g_j)² = ibs1 + 4·ibs0
// (seed 003's kernel input) are exact integers.
import type { TermGroup } from '../../mgemm/index.js';
import type { FinalizeContext, NativePairCountKind, PairBlock, PlaneLayout } from '../index.js';
import { planeBitsOfCodes } from '../index.js';
import { finalizePairCountRows } from '../index.js';

/** The distances' planes (bit p of a code's plane bits = plane p). */
export const IBS_PLANE = { het: 0, hom1: 1, hom2: 2, hom: 3 } as const;

const { het: H, hom1: A, hom2: B, hom: O } = IBS_PLANE;

/**
 * The planes: `10` is missing whatever the run's mode; sums count heterozygous calls. No presence plane: the tallies
 * need none (a presence plane would only cost its building).
 */
export function ibsPlaneLayout(): PlaneLayout {
  return {
    numPlanes: 4, countPlanes: [H], maskPlane: null,
    bitsOfCode: planeBitsOfCodes(true, (b1, b0, missing) => {
      if (missing) return [0, 0, 0, 0];
      const het = b1 ^ b0;
      return [het, b1 & b0, 1 - (b1 | b0), 1 - het];
    }),
  };
}

/** Term groups: ibs1 [HET HOM + HOM HET], ibs0 [HOM1 HOM2 + HOM2 HOM1]. */
export const IBS_TERM_GROUPS: readonly TermGroup[] = [[[H, O], [O, H]], [[A, B], [B, A]]];

/**
 * The table entries a pair's counts go to (checksum and records), entry (a of i, b of j): ibs0 and ibs1 on the
 * diagonal, the allele-count distance in both off-diagonal entries (every entry is symmetric in i and j).
 */
export const IBS_ENTRY = { ibs0: 0, distance01: 1, distance10: 2, ibs1: 3 } as const;

/** Counts go to the checksum and the records as count · 2^-22: in [0, 16), exact as float32 below 2^24. */
export const IBS_COUNT_SCALE = 2 ** -22;

/** Most SNPs: the allele-count distance (≤ 2 per SNP) must be exact as a float32 record (< 2^24). */
export const IBS_MAX_FIELDS = 2 ** 23 - 1;

/** A pair's distance from its IBS counts. */
export type DistanceOfCounts = (ibs0: number, ibs1: number) => number;

/** Σ|g_i − g_j| over the SNPs both called. */
export const alleleCountDistance: DistanceOfCounts = (ibs0, ibs1) => ibs1 + 2 * ibs0;

/** Σ(g_i − g_j)² over the SNPs both called. */
export const squaredDistance: DistanceOfCounts = (ibs0, ibs1) => ibs1 + 4 * ibs0;

/**
 * The finalize of a distance: every unique pair of the block into `ctx.sink` (addPairCountRow: the IBS counts to the
 * checksum and the records of pairs whose distance is above the run's threshold, the distance to a dense matrix);
 * `native` names the same counts and distance in the native finalize (pairCountRows.ts).
 */
export function finalizeDistancePairs(distanceOf: DistanceOfCounts, native: NativePairCountKind) {
  const pairCounts = (
    tallies: readonly Uint32Array[], tFirst: number, numPairs: number, out: { readonly counts: Float64Array; readonly values: Float64Array },
  ): void => {
    const [ibs1Tally, ibs0Tally] = tallies;
    const { counts, values } = out;
    for (let c = 0, t = tFirst; c < numPairs; c++, t++) {
      const ibs0 = ibs0Tally[t];
      const ibs1 = ibs1Tally[t];
      const distance = alleleCountDistance(ibs0, ibs1) * IBS_COUNT_SCALE;
      counts[4 * c + IBS_ENTRY.ibs0] = ibs0 * IBS_COUNT_SCALE;
      counts[4 * c + IBS_ENTRY.distance01] = distance;
      counts[4 * c + IBS_ENTRY.distance10] = distance;
      counts[4 * c + IBS_ENTRY.ibs1] = ibs1 * IBS_COUNT_SCALE;
      values[c] = distanceOf(ibs0, ibs1);
    }
  };
  return (ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number =>
    finalizePairCountRows('a distance', pairCounts, ctx, block, tallies, { native });
}
