// Inconsistent decompositions are refused with a one-line UserError; consistent ones pass.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { maxNumPhase, validateDecomposition, type Decomposition } from '../../src/parallel/index.js';

const base: Decomposition = {
  numProcVector: 4, numProcField: 2, numProcRepl: 1,
  numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows',
};
const problem2 = { numWay: 2 as const, numVector: 40, numField: 100 };
const problem3 = { numWay: 3 as const, numVector: 40, numField: 100 };

describe('validateDecomposition', () => {
  it('gives the phase maxima: block diagonals (2-way), block units (3-way)', () => {
    expect([1, 2, 3, 4, 5, 6].map((npv) => maxNumPhase(2, npv))).toEqual([1, 2, 2, 3, 3, 4]);
    expect([1, 2, 3, 4, 5, 6].map((npv) => maxNumPhase(3, npv))).toEqual([1, 2, 5, 10, 17, 26]);
  });

  it('accepts consistent decompositions', () => {
    expect(() => validateDecomposition(problem2, { ...base, numPhase: 3, phaseMin: 1, phaseMax: 2 })).not.toThrow();
    expect(() => validateDecomposition(problem2, { ...base, halfDiagonal: 'split' })).not.toThrow();
    expect(() =>
      validateDecomposition(problem3, { ...base, numPhase: 10, phaseMin: 9, phaseMax: 9, numStage: 7, stageMin: 2, stageMax: 6 }),
    ).not.toThrow();
  });

  const bad: Array<[string, typeof problem2 | typeof problem3, Partial<Decomposition>, RegExp]> = [
    ['no vector procs', problem2, { numProcVector: 0 }, /numProcVector/],
    ['fractional field procs', problem2, { numProcField: 1.5 }, /numProcField/],
    ['no replicas', problem2, { numProcRepl: 0 }, /numProcRepl/],
    ['1 vector per block, 2-way', { ...problem2, numVector: 4 }, {}, /too few vectors per block/],
    ['2 vectors per block, 3-way', { ...problem3, numVector: 8 }, {}, /too few vectors per block/],
    ['too many phases, 2-way', problem2, { numPhase: 4, phaseMax: 0 }, /maximum 3/],
    ['too many phases, 3-way', problem3, { numPhase: 11 }, /maximum 10/],
    ['no phases', problem2, { numPhase: 0 }, /numPhase/],
    ['phaseMax past the end', problem2, { numPhase: 2, phaseMax: 2 }, /phaseMax/],
    ['phaseMin after phaseMax', problem2, { numPhase: 3, phaseMin: 2, phaseMax: 1 }, /phaseMin/],
    ['negative phaseMin', problem2, { phaseMin: -1 }, /phaseMin/],
    ['no stages', problem3, { numStage: 0 }, /numStage/],
    ['stages in 2-way', problem2, { numStage: 2 }, /numStage must be 1 for 2-way/],
    ['stageMax past the end', problem3, { numStage: 3, stageMax: 3 }, /stageMax/],
    ['stageMin after stageMax', problem3, { numStage: 3, stageMin: 2, stageMax: 1 }, /stageMin/],
    ['a split half diagonal in 3-way', problem3, { halfDiagonal: 'split' }, /halfDiagonal split applies to 2-way only/],
    ['an unknown half-diagonal plan', problem2, { halfDiagonal: 'upper' as unknown as 'split' }, /halfDiagonal must be lower-rows or split/],
  ];
  for (const [what, problem, change, message] of bad) {
    it(`refuses ${what}`, () => {
      let caught: unknown;
      try {
        validateDecomposition(problem, { ...base, ...change });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(UserError);
      const text = (caught as UserError).message;
      expect(text).toMatch(message);
      expect(text).not.toContain('\n');
    });
  }

  it('refuses an invalid way and field count', () => {
    expect(() => validateDecomposition({ ...problem2, numField: 0 }, base)).toThrow(UserError);
    expect(() => validateDecomposition({ numWay: 4 as unknown as 2, numVector: 40, numField: 1 }, base)).toThrow(UserError);
  });
});
