// The process grid of SPEC §6: rank ↔ (field, vector, replica) coordinates, local sizes and global ranges.
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import type { IndexRange } from './evenSplit.js';

/** Number of processes along each axis of the grid. */
export interface ProcessGrid {
  /** Vector blocks. */
  readonly numProcVector: number;
  /** Field slabs (partial tallies are summed across them). */
  readonly numProcField: number;
  /** Replicas sharing the work of one vector block. */
  readonly numProcRepl: number;
}

/** Where one rank sits in the grid. */
export interface GridCoords {
  /** Vector block index, 0 ≤ vectorIdx < numProcVector. */
  readonly vectorIdx: number;
  /** Field slab index, 0 ≤ fieldIdx < numProcField. */
  readonly fieldIdx: number;
  /** Replica index, 0 ≤ replIdx < numProcRepl. */
  readonly replIdx: number;
}

/** Total number of ranks of the grid. */
export function numRanks(grid: ProcessGrid): number {
  return grid.numProcVector * grid.numProcField * grid.numProcRepl;
}

/** Rank = field + npf·(vector + npv·repl) (CoMet's order: the field axis varies fastest). */
export function rankOf(grid: ProcessGrid, coords: GridCoords): number {
  return coords.fieldIdx + grid.numProcField * (coords.vectorIdx + grid.numProcVector * coords.replIdx);
}

/** Inverse of {@link rankOf}. */
export function coordsOf(grid: ProcessGrid, rank: number): GridCoords {
  const fieldIdx = rank % grid.numProcField;
  const rest = Math.floor(rank / grid.numProcField);
  return {
    fieldIdx,
    vectorIdx: rest % grid.numProcVector,
    replIdx: Math.floor(rest / grid.numProcVector),
  };
}

/**
 * Vectors per block, pad vectors included: ceil(nv/npv), rounded up to a multiple of 6 for 3-way
 * with npv > 2, because the 3-way slab plan cuts the block cube into 6 equal sections.
 */
export function numVectorLocal(numVector: number, numProcVector: number, numWay: NumWay): number {
  // 4-way: every rank holds every vector (quadPlan.ts).
  if (numWay === 4) return numVector;
  const base = Math.ceil(numVector / numProcVector);
  return numWay === 3 && numProcVector > 2 ? 6 * Math.ceil(base / 6) : base;
}

/** Fields per slab, pad fields included: ceil(nf/npf). */
export function numFieldLocal(numField: number, numProcField: number): number {
  return Math.ceil(numField / numProcField);
}

/**
 * Global indices of the real vectors of block `vectorIdx`: lower blocks are full, the block holding
 * the last vector may be partial, and blocks after it hold only pad vectors (an empty range).
 */
export function vectorBlockRange(numVector: number, numVectorLocal: number, vectorIdx: number): IndexRange {
  return {
    begin: Math.min(numVector, numVectorLocal * vectorIdx),
    end: Math.min(numVector, numVectorLocal * (vectorIdx + 1)),
  };
}

/** Global indices of the real fields of slab `fieldIdx` (same layout rule as vector blocks). */
export function fieldSlabRange(numField: number, numFieldLocal: number, fieldIdx: number): IndexRange {
  return {
    begin: Math.min(numField, numFieldLocal * fieldIdx),
    end: Math.min(numField, numFieldLocal * (fieldIdx + 1)),
  };
}

/** Throws a one-line {@link UserError} unless `value` is an integer ≥ `min`. */
export function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UserError(`${name} must be an integer ≥ ${min} (got ${value})`);
  }
}

/** Checks the grid axes and that every block holds at least `numWay` vectors; throws {@link UserError}. */
export function validateGrid(grid: ProcessGrid, numVector: number, numWay: NumWay): void {
  requireInteger('numProcVector', grid.numProcVector, 1);
  requireInteger('numProcField', grid.numProcField, 1);
  requireInteger('numProcRepl', grid.numProcRepl, 1);
  requireInteger('numVector', numVector, 1);
  const perBlock = numWay === 4 ? numVector : Math.ceil(numVector / grid.numProcVector);
  if (perBlock < numWay) {
    throw new UserError(
      `too few vectors per block for ${numWay}-way: ceil(numVector ${numVector} / numProcVector ${grid.numProcVector}) = ${perBlock} < ${numWay}`,
    );
  }
}
