// 2-way block-circulant plan (SPEC §6): which blocks (rowBlock, colBlock) one rank computes in one phase.
import { evenSplit } from './evenSplit.js';
import { coordsOf, type ProcessGrid } from './grid.js';

/** One block of the 2-way result that a rank computes. */
export interface BlockCirculantStep {
  /** Block diagonal d: colBlock = (rowBlock + d) mod npv. */
  readonly diagonal: number;
  /** The rank's own vector block (its "i" vectors). */
  readonly rowBlock: number;
  /** The block whose vectors are the "j" side. */
  readonly colBlock: number;
  /** d = 0: only the strict upper triangle (local i < j) of the block is computed. */
  readonly isDiagonalBlock: boolean;
}

/**
 * Block diagonals each block row walks: 1 + floor(npv/2). Diagonals d and npv − d hold the same
 * unordered block pairs, so half of the circulant plus the main diagonal covers every pair; this is
 * also the maximum number of phases.
 */
export function numBlockDiagonals(numProcVector: number): number {
  return 1 + Math.floor(numProcVector / 2);
}

/** Whether block row `rowBlock` computes diagonal `diagonal` at all (before phases and replicas). */
export function rowComputesDiagonal(numProcVector: number, rowBlock: number, diagonal: number): boolean {
  // For even npv, diagonal npv/2 pairs row i with row i + npv/2 and that row with row i again:
  // only the lower half of the rows computes it, or every such pair would be done twice.
  const isHalfDiagonal = numProcVector % 2 === 0 && diagonal === numProcVector / 2 && diagonal > 0;
  return !isHalfDiagonal || rowBlock < numProcVector / 2;
}

/** Inputs of {@link blockCirculantPlan}. */
export interface BlockCirculantPlanInput {
  readonly grid: ProcessGrid;
  readonly rank: number;
  /** Number of phases the whole computation is cut into, 1 ≤ numPhase ≤ numBlockDiagonals(npv). */
  readonly numPhase: number;
  /** The phase to plan, 0 ≤ phaseIdx < numPhase. */
  readonly phaseIdx: number;
}

/**
 * The blocks `rank` computes in phase `phaseIdx`, in increasing diagonal order. Phase p takes
 * diagonals [floor(nbd·p/P), floor(nbd·(p+1)/P)); the diagonals of the rank's row in that range are
 * split among the replicas in contiguous chunks. The field axis does not change the plan: every field
 * slab computes the same blocks on its own fields. Assumes a validated decomposition.
 */
export function blockCirculantPlan(input: BlockCirculantPlanInput): BlockCirculantStep[] {
  const { grid, numPhase, phaseIdx } = input;
  const npv = grid.numProcVector;
  const { vectorIdx: rowBlock, replIdx } = coordsOf(grid, input.rank);
  const phaseDiagonals = evenSplit(numBlockDiagonals(npv), numPhase, phaseIdx);
  const rowDiagonals: number[] = [];
  for (let d = phaseDiagonals.begin; d < phaseDiagonals.end; d++) {
    if (rowComputesDiagonal(npv, rowBlock, d)) rowDiagonals.push(d);
  }
  const mine = evenSplit(rowDiagonals.length, grid.numProcRepl, replIdx);
  return rowDiagonals.slice(mine.begin, mine.end).map((diagonal) => ({
    diagonal,
    rowBlock,
    colBlock: (rowBlock + diagonal) % npv,
    isDiagonalBlock: diagonal === 0,
  }));
}
