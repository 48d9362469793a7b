// Which vector blocks one rank receives and sends in a phase, derived from every rank's plan (pure, no communication).
import { coordsOf, rankOf, type ProcessGrid } from './grid.js';

/** One block moved between two ranks. */
export interface BlockTransfer {
  /** Vector block index of the vectors moved (always the sender's own block). */
  readonly block: number;
  /** The other rank: the source of a receive, the destination of a send. */
  readonly peerRank: number;
}

/** A rank's transfers for one phase; between two ranks at most one block moves per phase. */
export interface BlockExchange {
  /** Blocks other than the own one that this rank needs, each from one rank, in first-use order. */
  readonly receives: readonly BlockTransfer[];
  /** Ranks that need this rank's block, by increasing rank. */
  readonly sends: readonly BlockTransfer[];
}

/** Blocks a (vector block, replica) position uses in a phase, e.g. from blockCirculantPlan or slabPhaseUnits. */
export type BlocksNeeded = (vectorIdx: number, replIdx: number) => readonly number[];

/**
 * Pairs every needed block with a sender: block J for rank (i, r, f) comes from rank (J, r, f), the
 * replica with the same index on the same field slab, so each rank serves only its own replica
 * column and slab. Every rank evaluating this gets matching sends and receives.
 */
export function blockExchangePlan(grid: ProcessGrid, rank: number, blocksNeeded: BlocksNeeded): BlockExchange {
  const { vectorIdx, replIdx, fieldIdx } = coordsOf(grid, rank);
  const receives: BlockTransfer[] = [];
  for (const block of new Set(blocksNeeded(vectorIdx, replIdx))) {
    if (block === vectorIdx) continue;
    receives.push({ block, peerRank: rankOf(grid, { vectorIdx: block, replIdx, fieldIdx }) });
  }
  const sends: BlockTransfer[] = [];
  for (let otherIdx = 0; otherIdx < grid.numProcVector; otherIdx++) {
    if (otherIdx === vectorIdx || !blocksNeeded(otherIdx, replIdx).includes(vectorIdx)) continue;
    sends.push({ block: vectorIdx, peerRank: rankOf(grid, { vectorIdx: otherIdx, replIdx, fieldIdx }) });
  }
  sends.sort((a, b) => a.peerRank - b.peerRank);
  return { receives, sends };
}
