// Every block a rank needs in a phase is sent to it by exactly one rank that owns it, for both plans.
import { describe, expect, it } from 'vitest';
import {
  blockCirculantPlan,
  blockExchangePlan,
  HALF_DIAGONAL_PLANS,
  maxNumPhase,
  numRanks,
  rankOf,
  slabPhaseUnits,
  type BlockExchange,
  type BlocksNeeded,
  type ProcessGrid,
} from '../../src/parallel/index.js';

function checkExchanges(grid: ProcessGrid, neededBy: (rank: number) => BlocksNeeded): void {
  const exchanges: BlockExchange[] = [];
  for (let rank = 0; rank < numRanks(grid); rank++) exchanges.push(blockExchangePlan(grid, rank, neededBy(rank)));
  exchanges.forEach((exchange, rank) => {
    for (const receive of exchange.receives) {
      const matches = exchanges[receive.peerRank].sends.filter((send) => send.peerRank === rank);
      expect(matches).toEqual([{ block: receive.block, peerRank: rank }]);
    }
    for (const send of exchange.sends) {
      const matches = exchanges[send.peerRank].receives.filter((receive) => receive.peerRank === rank);
      expect(matches).toEqual([{ block: send.block, peerRank: rank }]);
    }
  });
}

describe('blockExchangePlan', () => {
  it('names the replica-r, same-slab owner as the source of each block', () => {
    const grid = { numProcVector: 4, numProcField: 2, numProcRepl: 2 };
    const rank = rankOf(grid, { vectorIdx: 1, fieldIdx: 1, replIdx: 1 });
    const exchange = blockExchangePlan(grid, rank, () => [1, 3, 3, 0]);
    expect(exchange.receives).toEqual([
      { block: 3, peerRank: rankOf(grid, { vectorIdx: 3, fieldIdx: 1, replIdx: 1 }) },
      { block: 0, peerRank: rankOf(grid, { vectorIdx: 0, fieldIdx: 1, replIdx: 1 }) },
    ]);
    expect(exchange.sends.map((s) => s.peerRank)).toEqual([0, 2, 3].map((v) => rankOf(grid, { vectorIdx: v, fieldIdx: 1, replIdx: 1 })));
  });

  it('with a split half diagonal at npv 2, the two ranks swap blocks (rank 1 needs block 0 as well)', () => {
    const grid = { numProcVector: 2, numProcField: 1, numProcRepl: 1 };
    const needed: BlocksNeeded = (vectorIdx, replIdx) => blockCirculantPlan({
      grid, rank: rankOf(grid, { vectorIdx, replIdx, fieldIdx: 0 }), numVector: 10, numPhase: 1, phaseIdx: 0, halfDiagonal: 'split',
    }).map((step) => step.colBlock);
    expect(blockExchangePlan(grid, 0, needed)).toEqual({ receives: [{ block: 1, peerRank: 1 }], sends: [{ block: 0, peerRank: 1 }] });
    expect(blockExchangePlan(grid, 1, needed)).toEqual({ receives: [{ block: 0, peerRank: 0 }], sends: [{ block: 1, peerRank: 0 }] });
  });

  it('matches sends and receives for every 2-way and 3-way plan', () => {
    for (let numProcVector = 1; numProcVector <= 6; numProcVector++) {
      for (let numProcRepl = 1; numProcRepl <= 3; numProcRepl++) {
        for (const numProcField of [1, 2]) {
          const grid = { numProcVector, numProcField, numProcRepl };
          for (let numPhase = 1; numPhase <= maxNumPhase(2, numProcVector); numPhase++) {
            for (let phaseIdx = 0; phaseIdx < numPhase; phaseIdx++) {
              for (const halfDiagonal of HALF_DIAGONAL_PLANS) {
                checkExchanges(grid, () => (vectorIdx, replIdx) =>
                  blockCirculantPlan({
                    grid, rank: rankOf(grid, { vectorIdx, replIdx, fieldIdx: 0 }), numVector: 8 * numProcVector, numPhase, phaseIdx, halfDiagonal,
                  }).map((step) => step.colBlock),
                );
              }
            }
          }
          for (const numPhase of new Set([1, 2, maxNumPhase(3, numProcVector)].filter((p) => p <= maxNumPhase(3, numProcVector)))) {
            for (let phaseIdx = 0; phaseIdx < numPhase; phaseIdx++) {
              checkExchanges(grid, () => (vectorIdx, replIdx) =>
                slabPhaseUnits({ grid, rank: rankOf(grid, { vectorIdx, replIdx, fieldIdx: 0 }), numPhase, phaseIdx }).flatMap(
                  (unit) => [unit.jBlock, unit.kBlock],
                ),
              );
            }
          }
        }
      }
    }
  });
});
