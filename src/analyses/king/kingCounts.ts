// KING-robust kinship's planes, tallies and finalize: plink2's --make-king (plink2_matrix_calc.cc, CalcKing and
// ComputeKinship) on the engine's popcount GEMM, vectors being individuals and fields SNPs (`prepare --individuals`).
//
// Per individual, from SPEC §1's codes (10 always missing, as plink2 skips missing calls pair by pair): HET (01),
// HOM1 (11, two copies of allele 1), HOM2 (00) and PRESENT. Over the SNPs both individuals called:
//   hethet = Σ HET_i HET_j,  ibs0 = Σ HOM1_i HOM2_j + Σ HOM2_i HOM1_j (opposite homozygotes),
//   hetHom = Σ HET_i PRESENT_j − hethet (i het, j homozygous),  homHet = Σ PRESENT_i HET_j − hethet,
// five plane products. plink2's kinship, in its order of operations (integers exact, then doubles):
//   kinship = 0.5 − (4·ibs0 + hetHom + homHet) / (4·(hethet + min(hetHom, homHet)))
// which is −inf or NaN when one individual has no heterozygous call among the SNPs they share (as plink2 prints it).
import type { TermGroup } from '../../mgemm/index.js';
import type { FinalizeContext, PairBlock, PlaneLayout } from '../index.js';
import { planeBitsOfCodes } from '../index.js';
import { finalizePairCountRows } from '../index.js';

/** KING's planes (bit p of a code's plane bits = plane p). */
export const KING_PLANE = { het: 0, hom1: 1, hom2: 2, present: 3 } as const;

const { het: H, hom1: A, hom2: B, present: M } = KING_PLANE;

/** KING's plane layout: `10` is missing whatever the run's mode; sums count heterozygous calls. */
export function kingPlaneLayout(): PlaneLayout {
  return {
    numPlanes: 4, countPlanes: [H], maskPlane: M,
    bitsOfCode: planeBitsOfCodes(true, (b1, b0, missing) =>
      (missing ? [0, 0, 0, 0] : [b1 ^ b0, b1 & b0, 1 - (b1 | b0), 1])),
  };
}

/** Term groups: [HET HET], [HOM1 HOM2 + HOM2 HOM1], [HET PRESENT], [PRESENT HET]. */
export const KING_TERM_GROUPS: readonly TermGroup[] = [[[H, H]], [[A, B], [B, A]], [[H, M]], [[M, H]]];

/**
 * The table entries a pair's counts go to (checksum and records): entry (a of i, b of j). Entry (a, b) of (i, j) means
 * entry (b, a) of (j, i): hetHom of (i, j) is homHet of (j, i).
 */
export const KING_ENTRY = { hethet: 0, hetHom: 1, homHet: 2, ibs0: 3 } as const;

/** Counts go to the checksum and the records as count · 2^-22: in [0, 16) for counts < 2^26, exact as float32 below 2^24. */
export const KING_COUNT_SCALE = 2 ** -22;

/** plink2's KING-robust kinship of a pair from its exact counts (ComputeKinship's order of operations). */
export function kingKinship(hethet: number, ibs0: number, hetHom: number, homHet: number): number {
  const smallerHet = hethet + Math.min(hetHom, homHet);
  return 0.5 - (4 * ibs0 + hetHom + homHet) / (4 * smallerHet);
}

/**
 * Kinship of every unique pair of the block into `ctx.sink` (addPairCountRow: the counts to the checksum and records,
 * the kinship to a dense matrix). Returns the number of pairs.
 */
export function finalizeKingPairs(ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number {
  return finalizePairCountRows('KING', kingPairCounts, ctx, block, tallies, { native: 'king' });
}

/** A row of pairs' counts (hethet, het–hom, hom–het, ibs0) from their tallies, and their kinship (kingKinship's operations). */
function kingPairCounts(
  tallies: readonly Uint32Array[], tFirst: number, numPairs: number, out: { readonly counts: Float64Array; readonly values: Float64Array },
): void {
  const [hethetTally, ibs0Tally, hetPresentTally, presentHetTally] = tallies;
  const { counts, values } = out;
  for (let c = 0, t = tFirst; c < numPairs; c++, t++) {
    const hethet = hethetTally[t];
    const ibs0 = ibs0Tally[t];
    const hetHom = hetPresentTally[t] - hethet;
    const homHet = presentHetTally[t] - hethet;
    counts[4 * c + KING_ENTRY.hethet] = hethet * KING_COUNT_SCALE;
    counts[4 * c + KING_ENTRY.hetHom] = hetHom * KING_COUNT_SCALE;
    counts[4 * c + KING_ENTRY.homHet] = homHet * KING_COUNT_SCALE;
    counts[4 * c + KING_ENTRY.ibs0] = ibs0 * KING_COUNT_SCALE;
    values[c] = 0.5 - (4 * ibs0 + hetHom + homHet) / (4 * (hethet + Math.min(hetHom, homHet)));
  }
}
