// Every unique pair is computed exactly once by the 2-way block-circulant plan, for every grid and phase split.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  blockCirculantPlan,
  coordsOf,
  numBlockDiagonals,
  numRanks,
  numVectorLocal,
  validateDecomposition,
  type ProcessGrid,
} from '../../parallel/index.js';
import { countStepPairs, firstPairNotOnce } from './planCoverage.js';

const decompositionOf = (grid: ProcessGrid, numPhase: number, phaseIdx: number) => ({
  ...grid,
  numPhase,
  phaseMin: phaseIdx,
  phaseMax: phaseIdx,
  numStage: 1,
  stageMin: 0,
  stageMax: 0,
});

describe('numBlockDiagonals', () => {
  it('is 1 + floor(npv/2)', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(numBlockDiagonals)).toEqual([1, 2, 2, 3, 3, 4, 4]);
  });
});

describe('blockCirculantPlan', () => {
  it('gives row 1 of 4 blocks the diagonal, its right neighbour and no half diagonal', () => {
    const grid = { numProcVector: 4, numProcField: 1, numProcRepl: 1 };
    expect(blockCirculantPlan({ grid, rank: 1, numPhase: 1, phaseIdx: 0 })).toEqual([
      { diagonal: 0, rowBlock: 1, colBlock: 1, isDiagonalBlock: true },
      { diagonal: 1, rowBlock: 1, colBlock: 2, isDiagonalBlock: false },
      { diagonal: 2, rowBlock: 1, colBlock: 3, isDiagonalBlock: false },
    ]);
    expect(blockCirculantPlan({ grid, rank: 3, numPhase: 1, phaseIdx: 0 }).map((s) => s.colBlock)).toEqual([3, 0]);
  });

  it('splits a row among replicas in contiguous chunks', () => {
    const grid = { numProcVector: 5, numProcField: 1, numProcRepl: 2 };
    const diagonalsOf = (rank: number) => blockCirculantPlan({ grid, rank, numPhase: 1, phaseIdx: 0 }).map((s) => s.diagonal);
    expect(diagonalsOf(0)).toEqual([0]); // replica 0 of row 0
    expect(diagonalsOf(5)).toEqual([1, 2]); // replica 1 of row 0
  });

  // Each phase is planned as a separate run (phaseMin = phaseMax = p); the union over runs, ranks
  // of one field slab, and replicas must cover every pair of real vectors exactly once.
  for (let numProcVector = 1; numProcVector <= 6; numProcVector++) {
    it(`covers every pair exactly once with npv ${numProcVector}, any npr, npf, phases and nv`, () => {
      let numChecked = 0;
      for (let numProcRepl = 1; numProcRepl <= 3; numProcRepl++) {
        for (const numProcField of [1, 2]) {
          const grid: ProcessGrid = { numProcVector, numProcField, numProcRepl };
          for (let numVector = 1; numVector <= 40; numVector++) {
            const problem = { numWay: 2 as const, numVector, numField: 10 };
            if (Math.ceil(numVector / numProcVector) < 2) {
              expect(() => validateDecomposition(problem, decompositionOf(grid, 1, 0))).toThrow(UserError);
              continue;
            }
            const nvl = numVectorLocal(numVector, numProcVector, 2);
            for (let numPhase = 1; numPhase <= numBlockDiagonals(numProcVector); numPhase++) {
              const countsBySlab = Array.from({ length: numProcField }, () => new Uint16Array(numVector * numVector));
              for (let phaseIdx = 0; phaseIdx < numPhase; phaseIdx++) {
                validateDecomposition(problem, decompositionOf(grid, numPhase, phaseIdx));
                for (let rank = 0; rank < numRanks(grid); rank++) {
                  const counts = countsBySlab[coordsOf(grid, rank).fieldIdx];
                  for (const step of blockCirculantPlan({ grid, rank, numPhase, phaseIdx })) {
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
});
