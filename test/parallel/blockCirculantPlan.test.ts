// Every unique pair is computed exactly once by the 2-way block-circulant plan, for every grid, phase split
// and half-diagonal plan; `split` balances the ranks' pairs.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  blockCirculantPlan,
  coordsOf,
  HALF_DIAGONAL_PLANS,
  halfDiagonalCut,
  numBlockDiagonals,
  numRanks,
  numVectorLocal,
  validateDecomposition,
  type HalfDiagonalPlan,
  type ProcessGrid,
} from '../../src/parallel/index.js';
import { countStepPairs, firstPairNotOnce } from './planCoverage.js';

const decompositionOf = (grid: ProcessGrid, numPhase: number, phaseIdx: number, halfDiagonal: HalfDiagonalPlan) => ({
  ...grid,
  numPhase,
  phaseMin: phaseIdx,
  phaseMax: phaseIdx,
  numStage: 1,
  stageMin: 0,
  stageMax: 0,
  halfDiagonal,
});

const whole = (n: number) => ({ begin: 0, end: n });

describe('numBlockDiagonals', () => {
  it('is 1 + floor(npv/2)', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(numBlockDiagonals)).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });
});

describe('blockCirculantPlan', () => {
  it('gives row 1 of 4 blocks the diagonal, its right neighbour and no half diagonal', () => {
    const grid = { numProcVector: 4, numProcField: 1, numProcRepl: 1 };
    const input = { grid, numVector: 20, numPhase: 1, phaseIdx: 0, halfDiagonal: 'lower-rows' as const };
    expect(blockCirculantPlan({ ...input, rank: 1 })).toEqual([
      { diagonal: 0, rowBlock: 1, colBlock: 1, isDiagonalBlock: true, rowRange: whole(5), colRange: whole(5) },
      { diagonal: 1, rowBlock: 1, colBlock: 2, isDiagonalBlock: false, rowRange: whole(5), colRange: whole(5) },
      { diagonal: 2, rowBlock: 1, colBlock: 3, isDiagonalBlock: false, rowRange: whole(5), colRange: whole(5) },
    ]);
    expect(blockCirculantPlan({ ...input, rank: 3 }).map((s) => s.colBlock)).toEqual([3, 0]);
  });

  it('splits a row among replicas in contiguous chunks', () => {
    const grid = { numProcVector: 5, numProcField: 1, numProcRepl: 2 };
    const diagonalsOf = (rank: number) =>
      blockCirculantPlan({ grid, rank, numVector: 20, numPhase: 1, phaseIdx: 0, halfDiagonal: 'lower-rows' }).map((s) => s.diagonal);
    expect(diagonalsOf(0)).toEqual([0]); // replica 0 of row 0
    expect(diagonalsOf(5)).toEqual([1, 2]); // replica 1 of row 0
  });

  it('with split, shares each half-diagonal block: the lower row takes rows [0, h), the upper row columns [h, n)', () => {
    const grid = { numProcVector: 4, numProcField: 1, numProcRepl: 1 };
    // nvl 5, blocks of 5, 5, 5 and 2 real vectors: block 3 is the ragged last one.
    const input = { grid, numVector: 17, numPhase: 1, phaseIdx: 0, halfDiagonal: 'split' as const };
    const halfStepOf = (rank: number) => blockCirculantPlan({ ...input, rank }).find((s) => s.diagonal === 2);
    expect(halfDiagonalCut(5)).toBe(2);
    expect(halfStepOf(1)).toEqual({ diagonal: 2, rowBlock: 1, colBlock: 3, isDiagonalBlock: false, rowRange: whole(2), colRange: whole(2) });
    expect(halfStepOf(3)).toEqual({ diagonal: 2, rowBlock: 3, colBlock: 1, isDiagonalBlock: false, rowRange: whole(2), colRange: { begin: 2, end: 5 } });
    expect(halfStepOf(0)?.rowRange).toEqual(whole(2));
    expect(halfStepOf(2)?.colRange).toEqual({ begin: 2, end: 5 });
    // The other diagonals are whole blocks, as with SPEC §6's plan.
    const lowerRows = blockCirculantPlan({ ...input, rank: 3, halfDiagonal: 'lower-rows' });
    expect(blockCirculantPlan({ ...input, rank: 3 }).filter((s) => s.diagonal !== 2)).toEqual(lowerRows);
  });

  it('is the same for both half-diagonal plans when npv is odd', () => {
    for (const numProcVector of [1, 3, 5, 7]) {
      const grid = { numProcVector, numProcField: 1, numProcRepl: 2 };
      for (let rank = 0; rank < numRanks(grid); rank++) {
        const input = { grid, rank, numVector: 3 * numProcVector + 1, numPhase: 1, phaseIdx: 0 };
        expect(blockCirculantPlan({ ...input, halfDiagonal: 'split' })).toEqual(blockCirculantPlan({ ...input, halfDiagonal: 'lower-rows' }));
      }
    }
  });

  // Each phase is planned as a separate run (phaseMin = phaseMax = p); the union over runs, ranks
  // of one field slab, and replicas must cover every pair of real vectors exactly once.
  for (const halfDiagonal of HALF_DIAGONAL_PLANS) {
    for (let numProcVector = 1; numProcVector <= 8; numProcVector++) {
      it(`${halfDiagonal}: covers every pair exactly once with npv ${numProcVector}, any npr, npf, phases and nv`, () => {
        let numChecked = 0;
        for (let numProcRepl = 1; numProcRepl <= 3; numProcRepl++) {
          for (const numProcField of [1, 2]) {
            const grid: ProcessGrid = { numProcVector, numProcField, numProcRepl };
            // Block sizes 2–5 with every ragged last block (fewer values for the larger grids, for time).
            for (let numVector = 1; numVector <= (numProcVector <= 6 ? 40 : 5 * numProcVector); numVector++) {
              const problem = { numWay: 2 as const, numVector, numField: 10 };
              if (Math.ceil(numVector / numProcVector) < 2) {
                expect(() => validateDecomposition(problem, decompositionOf(grid, 1, 0, halfDiagonal))).toThrow(UserError);
                continue;
              }
              const nvl = numVectorLocal(numVector, numProcVector, 2);
              for (let numPhase = 1; numPhase <= numBlockDiagonals(numProcVector); numPhase++) {
                const countsBySlab = Array.from({ length: numProcField }, () => new Uint16Array(numVector * numVector));
                for (let phaseIdx = 0; phaseIdx < numPhase; phaseIdx++) {
                  validateDecomposition(problem, decompositionOf(grid, numPhase, phaseIdx, halfDiagonal));
                  for (let rank = 0; rank < numRanks(grid); rank++) {
                    const counts = countsBySlab[coordsOf(grid, rank).fieldIdx];
                    for (const step of blockCirculantPlan({ grid, rank, numVector, numPhase, phaseIdx, halfDiagonal })) {
                      countStepPairs(step, numVector, nvl, counts);
                    }
                  }
                }
                for (const counts of countsBySlab) {
                  expect(firstPairNotOnce(counts, numVector), `grid ${JSON.stringify(grid)} nv ${numVector} P ${numPhase}`).toBeNull();
                  numChecked++;
                }
              }
            }
          }
        }
        expect(numChecked).toBeGreaterThan(0);
      });
    }
  }
});

/** Pairs each rank of one field slab computes over all phases of a run cut into `numPhase`. */
function pairsPerRank(grid: ProcessGrid, numVector: number, numPhase: number, halfDiagonal: HalfDiagonalPlan): number[] {
  const nvl = numVectorLocal(numVector, grid.numProcVector, 2);
  const counts = new Uint16Array(numVector * numVector);
  const perRank: number[] = [];
  for (let rank = 0; rank < numRanks(grid); rank++) {
    if (coordsOf(grid, rank).fieldIdx !== 0) continue;
    let pairs = 0;
    for (let phaseIdx = 0; phaseIdx < numPhase; phaseIdx++) {
      for (const step of blockCirculantPlan({ grid, rank, numVector, numPhase, phaseIdx, halfDiagonal })) {
        pairs += countStepPairs(step, numVector, nvl, counts);
      }
    }
    perRank.push(pairs);
  }
  return perRank;
}

describe('split half diagonal: balanced ranks', () => {
  it('at npv 2, SPEC §6 gives rank 0 3/4 of the pairs; split gives each rank half (within one row of pairs)', () => {
    const grid = { numProcVector: 2, numProcField: 1, numProcRepl: 1 };
    const numVector = 200;
    const total = (numVector * (numVector - 1)) / 2;
    const [lower0, lower1] = pairsPerRank(grid, numVector, 1, 'lower-rows');
    expect(lower0 / total).toBeCloseTo(0.75, 2);
    expect(lower1 / total).toBeCloseTo(0.25, 2);
    const split = pairsPerRank(grid, numVector, 1, 'split');
    expect(split[0] + split[1]).toBe(total);
    expect(Math.abs(split[0] - split[1])).toBeLessThanOrEqual(numVector / 2);
  });

  // Full blocks (nv a multiple of npv): every rank of an even npv within one block row of pairs of the mean,
  // whatever the phases (npr 1: a replica split of a row's diagonals has its own imbalance, the same for both plans).
  for (const numProcVector of [2, 4, 6, 8]) {
    it(`npv ${numProcVector}: max pairs per rank ≤ mean + nvl for every phase count, nvl 4–9`, () => {
      for (let nvl = 4; nvl <= 9; nvl++) {
        const numVector = nvl * numProcVector;
        const grid = { numProcVector, numProcField: 2, numProcRepl: 1 };
        for (let numPhase = 1; numPhase <= numBlockDiagonals(numProcVector); numPhase++) {
          const perRank = pairsPerRank(grid, numVector, numPhase, 'split');
          const mean = perRank.reduce((a, b) => a + b, 0) / perRank.length;
          expect(mean).toBe((numVector * (numVector - 1)) / 2 / numProcVector);
          expect(Math.max(...perRank) - mean, `nvl ${nvl} P ${numPhase} ${perRank.join(',')}`).toBeLessThanOrEqual(nvl);
          // SPEC §6's plan is off by half a block of pairs (nvl²/2) on the lower rows.
          const lower = pairsPerRank(grid, numVector, numPhase, 'lower-rows');
          expect(Math.max(...lower) - mean).toBeGreaterThanOrEqual((nvl * nvl) / 2 - nvl);
        }
      }
    });
  }

  it('npv 2 npr 2: the four ranks each take about a quarter (SPEC §6 leaves replica 1 of row 1 idle)', () => {
    const grid = { numProcVector: 2, numProcField: 1, numProcRepl: 2 };
    const numVector = 100;
    const quarter = (numVector * (numVector - 1)) / 2 / 4;
    const split = pairsPerRank(grid, numVector, 1, 'split');
    for (const pairs of split) expect(Math.abs(pairs - quarter)).toBeLessThanOrEqual(numVector / 2);
    expect(pairsPerRank(grid, numVector, 1, 'lower-rows')).toContain(0);
  });
});
