// Checks a whole decomposition (grid, phases, stages) before any rank starts, with one-line UserErrors.
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { MAX_QUAD_VECTORS } from './quadPlan.js';
import { numBlockDiagonals, type HalfDiagonalPlan } from './blockCirculantPlan.js';
import { requireInteger, validateGrid, type ProcessGrid } from './grid.js';
import { numSlabUnits } from './slabPlan.js';

/**
 * The grid plus the slice of phases and stages one run computes (indices 0-based, max inclusive), and the
 * 2-way plan's choice for the d = npv/2 block diagonal.
 */
export interface Decomposition extends ProcessGrid {
  readonly numPhase: number;
  readonly phaseMin: number;
  /** Inclusive. */
  readonly phaseMax: number;
  readonly numStage: number;
  readonly stageMin: number;
  /** Inclusive. */
  readonly stageMax: number;
  /** 2-way only: who computes the d = npv/2 block diagonal of an even npv (`lower-rows` is SPEC §6's plan). */
  readonly halfDiagonal: HalfDiagonalPlan;
}

/** What a decomposition is checked against. */
export interface DecomposedProblem {
  readonly numWay: NumWay;
  readonly numVector: number;
  readonly numField: number;
}

/** Most phases a run may be cut into: one block diagonal (2-way) or one block unit (3-way) per phase; 4-way: work shares (quadPlan.ts). */
export function maxNumPhase(numWay: NumWay, numProcVector: number): number {
  if (numWay === 4) return MAX_QUAD_PHASES;
  return numWay === 2 ? numBlockDiagonals(numProcVector) : numSlabUnits(numProcVector);
}

/** Throws a one-line {@link UserError} for any inconsistent decomposition of `problem`. */
export function validateDecomposition(problem: DecomposedProblem, decomposition: Decomposition): void {
  const { numWay } = problem;
  if (numWay !== 2 && numWay !== 3 && numWay !== 4) throw new UserError(`numWay must be 2, 3 or 4 (got ${String(numWay)})`);
  requireInteger('numField', problem.numField, 1);
  validateGrid(decomposition, problem.numVector, numWay);
  if (numWay === 4) validateQuadDecomposition(problem.numVector, decomposition);

  const { numPhase, phaseMin, phaseMax, numStage, stageMin, stageMax } = decomposition;
  requireInteger('numPhase', numPhase, 1);
  const maxPhase = maxNumPhase(numWay, decomposition.numProcVector);
  if (numPhase > maxPhase) {
    throw new UserError(
      `numPhase ${numPhase} exceeds the maximum ${maxPhase} for ${numWay}-way with numProcVector ${decomposition.numProcVector}`,
    );
  }
  requireIndexRange('phase', phaseMin, phaseMax, numPhase);

  requireInteger('numStage', numStage, 1);
  // CoMet computes 2-way results in one stage only; stages exist to bound 3-way memory.
  if (numWay === 2 && numStage !== 1) {
    throw new UserError(`numStage must be 1 for 2-way (got ${numStage})`);
  }
  requireIndexRange('stage', stageMin, stageMax, numStage);

  const { halfDiagonal } = decomposition;
  if (halfDiagonal !== 'lower-rows' && halfDiagonal !== 'split') {
    throw new UserError(`halfDiagonal must be lower-rows or split (got ${String(halfDiagonal)})`);
  }
  // The 3-way slab plan has no half diagonal: a `split` there would be silently meaningless.
  if (numWay !== 2 && halfDiagonal !== 'lower-rows') {
    throw new UserError(`halfDiagonal ${halfDiagonal} applies to 2-way only (the 3-way slab plan has no half diagonal)`);
  }
}

/** Most phases of a 4-way run (its phases are shares of the work, any number of them; a bound keeps plans small). */
export const MAX_QUAD_PHASES = 4096;

/** The 4-way plan (quadPlan.ts) reads every vector on every rank and splits the work: no field slabs, vectors ≤ its limit. */
function validateQuadDecomposition(numVector: number, decomposition: Decomposition): void {
  if (decomposition.numProcField !== 1) throw new UserError(`numProcField must be 1 for 4-way (got ${decomposition.numProcField})`);
  if (numVector < 4) throw new UserError(`4-way needs at least 4 vectors (got ${numVector})`);
  if (numVector > MAX_QUAD_VECTORS) throw new UserError(`4-way takes at most ${MAX_QUAD_VECTORS} vectors (got ${numVector})`);
}

/** 0 ≤ min ≤ max < count, all integers. */
function requireIndexRange(name: string, min: number, max: number, count: number): void {
  requireInteger(`${name}Min`, min, 0);
  requireInteger(`${name}Max`, max, 0);
  if (min > max || max >= count) {
    throw new UserError(
      `${name}Min ${min} and ${name}Max ${max} must satisfy 0 ≤ ${name}Min ≤ ${name}Max < num${name === 'phase' ? 'Phase' : 'Stage'} ${count}`,
    );
  }
}
