// 2-way block-circulant plan (SPEC §6): which blocks (rowBlock, colBlock), and which rows and columns of
// them, one rank computes in one phase.
import { evenSplit, type IndexRange } from './evenSplit.js';
import { coordsOf, numVectorLocal, vectorBlockRange, type ProcessGrid } from './grid.js';

/**
 * Who computes the d = npv/2 block diagonal of an even npv, whose blocks (i, i + npv/2) each pair two rows:
 * - `lower-rows` (SPEC §6, the default): rows i < npv/2 compute their whole block; rows ≥ npv/2 skip it.
 * - `split`: both rows of a block pair compute about half of it (see {@link halfDiagonalCut}), so every
 *   row does the same work; each pair is still computed once and the checksum is unchanged, but the
 *   upper row writes records of pairs that SPEC §6's plan gives to the lower row.
 * Odd npv has no such diagonal: both plans are the same.
 */
export type HalfDiagonalPlan = 'lower-rows' | 'split';

/** The plans of {@link HalfDiagonalPlan}, the default (SPEC §6's) first. */
export const HALF_DIAGONAL_PLANS: readonly HalfDiagonalPlan[] = ['lower-rows', 'split'];

/** One block of the 2-way result that a rank computes, or the part of it given by the two ranges. */
export interface BlockCirculantStep {
  /** Block diagonal d: colBlock = (rowBlock + d) mod npv. */
  readonly diagonal: number;
  /** The rank's own vector block (its "i" vectors). */
  readonly rowBlock: number;
  /** The block whose vectors are the "j" side. */
  readonly colBlock: number;
  /** d = 0: only the strict upper triangle (local i < j) of the block is computed. */
  readonly isDiagonalBlock: boolean;
  /** Local indices of the real vectors of rowBlock computed: all of them except in a `split` half-diagonal block. */
  readonly rowRange: IndexRange;
  /** Local indices of the real vectors of colBlock computed (same rule). */
  readonly colRange: IndexRange;
}

/**
 * Block diagonals each block row walks: 1 + floor(npv/2). Diagonals d and npv − d hold the same
 * unordered block pairs, so half of the circulant plus the main diagonal covers every pair; this is
 * also the maximum number of phases.
 */
export function numBlockDiagonals(numProcVector: number): number {
  return 1 + Math.floor(numProcVector / 2);
}

/** Whether `diagonal` is the d = npv/2 diagonal of an even npv, whose block pairs are met from both rows. */
export function isHalfDiagonal(numProcVector: number, diagonal: number): boolean {
  return numProcVector % 2 === 0 && diagonal === numProcVector / 2 && diagonal > 0;
}

/** Whether block row `rowBlock` computes diagonal `diagonal` at all (before phases and replicas). */
export function rowComputesDiagonal(
  numProcVector: number, rowBlock: number, diagonal: number, halfDiagonal: HalfDiagonalPlan,
): boolean {
  // For even npv, diagonal npv/2 pairs row i with row i + npv/2 and that row with row i again: with
  // `lower-rows` only the lower half of the rows computes it, or every such pair would be done twice;
  // with `split` both rows compute complementary halves.
  return halfDiagonal === 'split' || !isHalfDiagonal(numProcVector, diagonal) || rowBlock < numProcVector / 2;
}

/**
 * Where a `split` half-diagonal block (i, i + npv/2), i < npv/2, is cut: row i takes its own local rows
 * [0, h) against all of block i + npv/2, row i + npv/2 takes all of its rows against columns [h, n) of
 * block i, with n the real vectors of block i. Both halves hold (h or n − h) × (real vectors of block
 * i + npv/2) pairs, so cutting block i's n in half balances them even when the other block is the ragged
 * last one. The upper row gets the larger half: it is the one that may be ragged and have less other work.
 */
export function halfDiagonalCut(numRealLowerBlock: number): number {
  return Math.floor(numRealLowerBlock / 2);
}

/** Inputs of {@link blockCirculantPlan}. */
export interface BlockCirculantPlanInput {
  readonly grid: ProcessGrid;
  readonly rank: number;
  /** Real vectors of the problem (the ranges of the steps are of real vectors only). */
  readonly numVector: number;
  /** Number of phases the whole computation is cut into, 1 ≤ numPhase ≤ numBlockDiagonals(npv). */
  readonly numPhase: number;
  /** The phase to plan, 0 ≤ phaseIdx < numPhase. */
  readonly phaseIdx: number;
  /** Who computes the d = npv/2 diagonal of an even npv. */
  readonly halfDiagonal: HalfDiagonalPlan;
}

/**
 * The blocks `rank` computes in phase `phaseIdx`, in increasing diagonal order. Phase p takes
 * diagonals [floor(nbd·p/P), floor(nbd·(p+1)/P)); the diagonals of the rank's row in that range are
 * split among the replicas in contiguous chunks (a `split` half-diagonal step is one diagonal like any
 * other). The field axis does not change the plan: every field slab computes the same blocks on its own
 * fields. Assumes a validated decomposition.
 */
export function blockCirculantPlan(input: BlockCirculantPlanInput): BlockCirculantStep[] {
  const { grid, numPhase, phaseIdx, halfDiagonal } = input;
  const npv = grid.numProcVector;
  const { vectorIdx: rowBlock, replIdx } = coordsOf(grid, input.rank);
  const nvl = numVectorLocal(input.numVector, npv, 2);
  const realRange = (block: number): IndexRange => {
    const global = vectorBlockRange(input.numVector, nvl, block);
    return { begin: 0, end: global.end - global.begin };
  };
  const phaseDiagonals = evenSplit(numBlockDiagonals(npv), numPhase, phaseIdx);
  const rowDiagonals: number[] = [];
  for (let d = phaseDiagonals.begin; d < phaseDiagonals.end; d++) {
    if (rowComputesDiagonal(npv, rowBlock, d, halfDiagonal)) rowDiagonals.push(d);
  }
  const mine = evenSplit(rowDiagonals.length, grid.numProcRepl, replIdx);
  return rowDiagonals.slice(mine.begin, mine.end).map((diagonal) => {
    const colBlock = (rowBlock + diagonal) % npv;
    let rowRange = realRange(rowBlock);
    let colRange = realRange(colBlock);
    if (halfDiagonal === 'split' && isHalfDiagonal(npv, diagonal)) {
      if (rowBlock < colBlock) rowRange = { begin: 0, end: halfDiagonalCut(rowRange.end) };
      else colRange = { begin: halfDiagonalCut(colRange.end), end: colRange.end };
    }
    return { diagonal, rowBlock, colBlock, isDiagonalBlock: diagonal === 0, rowRange, colRange };
  });
}
