// Every unique triple is computed exactly once by the 3-way slab plan, for every grid, phase split and stage split.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  numRanks,
  numSlabUnits,
  numVectorLocal,
  sectionAxisPart3,
  sectionNumPart3,
  slabBlockUnits,
  slabPlan,
  validateDecomposition,
  type ProcessGrid,
} from '../../src/parallel/index.js';
import { countUnitTriples, firstTripleNotOnce } from './planCoverage.js';

interface Sweep {
  readonly numVectors: readonly number[];
  readonly numPhases: (max: number) => number[];
  readonly numStages: readonly number[];
}

/**
 * Runs every (phase, stage) as a separate run (min = max) over all ranks of field slab 0 and asserts
 * that each triple of real vectors is counted once. Returns the number of decompositions checked.
 */
function checkCoverage(numProcVector: number, sweep: Sweep): number {
  let numChecked = 0;
  for (let numProcRepl = 1; numProcRepl <= 3; numProcRepl++) {
    const grid: ProcessGrid = { numProcVector, numProcField: 1, numProcRepl };
    for (const numVector of sweep.numVectors) {
      const problem = { numWay: 3 as const, numVector, numField: 10 };
      const single = { ...grid, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows' as const };
      if (Math.ceil(numVector / numProcVector) < 3) {
        expect(() => validateDecomposition(problem, single)).toThrow(UserError);
        continue;
      }
      const nvl = numVectorLocal(numVector, numProcVector, 3);
      if (numProcVector > 2) expect(nvl % 6).toBe(0);
      for (const numPhase of sweep.numPhases(numSlabUnits(numProcVector))) {
        for (const numStage of sweep.numStages) {
          const counts = new Uint16Array(numVector * numVector * numVector);
          for (let phaseIdx = 0; phaseIdx < numPhase; phaseIdx++) {
            for (let stageIdx = 0; stageIdx < numStage; stageIdx++) {
              validateDecomposition(problem, {
                ...grid, numPhase, phaseMin: phaseIdx, phaseMax: phaseIdx, numStage, stageMin: stageIdx, stageMax: stageIdx,
                halfDiagonal: 'lower-rows',
              });
              for (let rank = 0; rank < numRanks(grid); rank++) {
                const units = slabPlan({ grid, rank, numVectorLocal: nvl, numPhase, phaseIdx, numStage, stageIdx });
                for (const unit of units) countUnitTriples(unit, numVector, nvl, counts);
              }
            }
          }
          const where = `npv ${numProcVector} npr ${numProcRepl} nv ${numVector} P ${numPhase} stages ${numStage}`;
          expect(firstTripleNotOnce(counts, numVector), where).toBeNull();
          numChecked++;
        }
      }
    }
  }
  return numChecked;
}

const allUpTo = (max: number): number[] => Array.from({ length: max }, (_, idx) => idx + 1);

describe('slabBlockUnits', () => {
  it('lists 1 + (npv−1) + (npv−1)(npv−2) units: tetrahedron, prisms, then cubes', () => {
    for (let npv = 1; npv <= 6; npv++) {
      for (let iBlock = 0; iBlock < npv; iBlock++) {
        const units = slabBlockUnits(npv, iBlock);
        expect(units.length).toBe(numSlabUnits(npv));
        expect(units.map((u) => u.part)).toEqual([1, ...Array<number>(npv - 1).fill(2), ...Array<number>((npv - 1) * (npv - 2)).fill(3)]);
        const cubes = units.filter((u) => u.part === 3).map((u) => `${u.jBlock},${u.kBlock}`);
        expect(new Set(cubes).size).toBe(cubes.length);
      }
    }
    expect(slabBlockUnits(3, 2).map((u) => [u.jBlock, u.kBlock])).toEqual([[2, 2], [0, 0], [1, 1], [1, 0], [0, 1]]);
  });
});

describe('part 3 sections', () => {
  it('numbers the 6 orders of (i, J, K) as CoMet does and cuts along the smallest block', () => {
    expect(sectionNumPart3(0, 1, 2)).toBe(0);
    expect(sectionNumPart3(0, 2, 1)).toBe(1);
    expect(sectionNumPart3(1, 0, 2)).toBe(2);
    expect(sectionNumPart3(2, 0, 1)).toBe(3);
    expect(sectionNumPart3(1, 2, 0)).toBe(4);
    expect(sectionNumPart3(2, 1, 0)).toBe(5);
    expect([sectionAxisPart3(0, 1, 2), sectionAxisPart3(1, 0, 2), sectionAxisPart3(2, 1, 0)]).toEqual([0, 1, 2]);
  });

  it('cuts stages of a section into contiguous, possibly empty parts', () => {
    const grid = { numProcVector: 3, numProcField: 1, numProcRepl: 1 };
    const rangesOf = (stageIdx: number) =>
      slabPlan({ grid, rank: 0, numVectorLocal: 6, numPhase: 1, phaseIdx: 0, numStage: 4, stageIdx }).map((u) => [
        u.sectionRange.begin,
        u.sectionRange.end,
      ]);
    // Units of block 0: tetrahedron, prisms (1,1), (2,2), cubes (2,1) section 1, (1,2) section 0.
    expect(rangesOf(0)).toEqual([[0, 1], [0, 1], [0, 1], [1, 1], [0, 0]]);
    expect(rangesOf(3)).toEqual([[4, 6], [4, 6], [4, 6], [1, 2], [0, 1]]);
  });
});

describe('slabPlan coverage', () => {
  // Full sweep of phases 1..max and stages 1..5 on a few sizes (padded blocks, empty blocks, exact fits).
  for (let numProcVector = 1; numProcVector <= 6; numProcVector++) {
    it(`covers every triple once with npv ${numProcVector}, npr 1–3, every phase count and stages 1–5`, () => {
      const numChecked = checkCoverage(numProcVector, {
        numVectors: [3, 4, 7, 13, 19, 25].filter((nv) => numProcVector <= 3 || nv >= 13),
        numPhases: allUpTo,
        numStages: [1, 2, 3, 4, 5],
      });
      expect(numChecked).toBeGreaterThan(0);
    });
  }

  // Every nv 1..40 (fewer vectors than ranks, nv not divisible by npv) with a few phase/stage counts.
  for (let numProcVector = 1; numProcVector <= 6; numProcVector++) {
    it(`covers every triple once with npv ${numProcVector} for nv 1–40`, () => {
      const numChecked = checkCoverage(numProcVector, {
        numVectors: allUpTo(40),
        numPhases: (max) => [...new Set([1, Math.min(2, max), max])],
        numStages: [1, 3],
      });
      expect(numChecked).toBeGreaterThan(0);
    });
  }
});
