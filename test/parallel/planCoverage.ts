// Test helper: the global pairs/triples a plan's steps/units stand for, counted over many mock ranks (no threads).
import type { BlockCirculantStep, SlabUnit } from '../../src/parallel/index.js';

/**
 * Adds 1 at i·nv + j (i < j) for every real pair of one 2-way step (its row range × its column range);
 * returns the number of pairs added.
 */
export function countStepPairs(step: BlockCirculantStep, numVector: number, nvl: number, counts: Uint16Array): number {
  const rowBase = step.rowBlock * nvl;
  const colBase = step.colBlock * nvl;
  // The ranges must lie inside the blocks' local indices.
  if (step.rowRange.begin < 0 || step.rowRange.end > nvl || step.colRange.begin < 0 || step.colRange.end > nvl) {
    throw new Error(`step ranges outside the block: ${JSON.stringify(step)}`);
  }
  let numAdded = 0;
  for (let a = step.rowRange.begin; a < step.rowRange.end; a++) {
    // Diagonal block: strict upper triangle only (local i < j).
    for (let b = step.isDiagonalBlock ? Math.max(a + 1, step.colRange.begin) : step.colRange.begin; b < step.colRange.end; b++) {
      const gi = rowBase + a;
      const gj = colBase + b;
      // The plan's ranges hold real vectors only: pad vectors never appear.
      if (gi >= numVector || gj >= numVector) throw new Error(`pad vector in step ${JSON.stringify(step)}`);
      counts[Math.min(gi, gj) * numVector + Math.max(gi, gj)]++;
      numAdded++;
    }
  }
  return numAdded;
}

/** Adds 1 at the sorted (i, j, k) index of every real triple of one 3-way unit's stage. */
export function countUnitTriples(unit: SlabUnit, numVector: number, nvl: number, counts: Uint16Array): void {
  const bases = [unit.iBlock * nvl, unit.jBlock * nvl, unit.kBlock * nvl];
  const { begin, end } = unit.sectionRange;
  const add = (a: number, b: number, c: number): void => {
    const g0 = bases[0] + a;
    const g1 = bases[1] + b;
    const g2 = bases[2] + c;
    if (g0 >= numVector || g1 >= numVector || g2 >= numVector) return;
    const [x, y, z] = [g0, g1, g2].sort((p, q) => p - q);
    counts[(x * numVector + y) * numVector + z]++;
  };
  if (unit.part === 1) {
    // Tetrahedron of the own block: i < j < k, cut along j.
    for (let b = begin; b < end; b++) for (let a = 0; a < b; a++) for (let c = b + 1; c < nvl; c++) add(a, b, c);
  } else if (unit.part === 2) {
    // Prism: any i of the own block, j < k in block J, cut along j.
    for (let b = begin; b < end; b++) for (let a = 0; a < nvl; a++) for (let c = b + 1; c < nvl; c++) add(a, b, c);
  } else {
    // Cube section: the coordinate on the section axis lies in the range.
    const lo = [0, 0, 0];
    const hi = [nvl, nvl, nvl];
    lo[unit.sectionAxis] = begin;
    hi[unit.sectionAxis] = end;
    for (let a = lo[0]; a < hi[0]; a++) for (let b = lo[1]; b < hi[1]; b++) for (let c = lo[2]; c < hi[2]; c++) add(a, b, c);
  }
}

/** The first pair (i < j) whose count is not 1, as text; null when every pair is covered exactly once. */
export function firstPairNotOnce(counts: Uint16Array, numVector: number): string | null {
  for (let i = 0; i < numVector; i++) {
    for (let j = i + 1; j < numVector; j++) {
      const count = counts[i * numVector + j];
      if (count !== 1) return `pair (${i},${j}) covered ${count} times`;
    }
  }
  // A pair of a vector with itself would land on the diagonal.
  let total = 0;
  for (const count of counts) total += count;
  const numPairs = (numVector * (numVector - 1)) / 2;
  return total === numPairs ? null : `${total - numPairs} pairs of a vector with itself`;
}

/** The first triple (i < j < k) whose count is not 1, or a non-sorted index that got counted; null when all is right. */
export function firstTripleNotOnce(counts: Uint16Array, numVector: number): string | null {
  let numCounted = 0;
  for (let i = 0; i < numVector; i++) {
    for (let j = i + 1; j < numVector; j++) {
      for (let k = j + 1; k < numVector; k++) {
        const count = counts[(i * numVector + j) * numVector + k];
        if (count !== 1) return `triple (${i},${j},${k}) covered ${count} times`;
        numCounted++;
      }
    }
  }
  // Triples with repeated vectors must never be counted (they would land off the sorted indices).
  let total = 0;
  for (const count of counts) total += count;
  return total === numCounted ? null : `${total - numCounted} triples with a repeated vector`;
}
