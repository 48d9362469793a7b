// Filling row ranges of a synthetic block (SPEC §4): packed codes → planes, the work that syntheticBlock.ts
// gives its block workers (or the main thread, for small blocks) chunk by chunk.
//
// Only light imports (core and type-only): the block worker threads load this file.
import { AnalyticProblem, fillRandomProblemRowPacked } from '../core/syntheticProblems.js';
import { packRowPlanes, planePackingTable } from './planePacking.js';
import type { PlaneLayout } from './tallyLayout.js';
import type { SlabShape } from './vectorBlock.js';

/**
 * A synthetic block being built: plain data (typed arrays over SharedArrayBuffers when workers share it),
 * so it can be posted to a worker as is. Rows are the block's local vector rows `[0, shape.numVectorReal)`.
 */
export interface SyntheticBlockFill {
  readonly problem: 'random' | 'analytic';
  readonly numVector: number;
  readonly numField: number;
  readonly layout: PlaneLayout;
  readonly shape: SlabShape;
  /** The block's plane words: row r, plane p starts at `(r·numPlanes + p)·wordsPerPlane` (contract.ts). */
  readonly words: Uint32Array;
  readonly wordsPerPlane: number;
}

/**
 * What every block worker of a block gets (its `workerData`): the block, and its rows cut into chunks of
 * `chunkRows` that workers claim in order from the shared counter `nextChunk` (element 0), reporting each
 * chunk they finish to the main thread.
 */
export interface SyntheticChunksTask {
  readonly fill: SyntheticBlockFill;
  readonly chunkRows: number;
  readonly numChunks: number;
  readonly nextChunk: Int32Array;
}

/**
 * A writer of rows `[rowFirst, rowEnd)` of `fill`, its tables built once. Each row's values depend only on its
 * global vector index and the slab's global fields, so any split of the rows gives the same block.
 */
export function syntheticRowFiller(fill: SyntheticBlockFill): (rowFirst: number, rowEnd: number) => void {
  // A worker gets its fill as plain data: check what the types cannot.
  if (fill.problem !== 'random' && fill.problem !== 'analytic') throw new Error(`unknown synthetic problem '${String(fill.problem)}'`);
  const { shape, layout } = fill;
  const numField = shape.numFieldLocal;
  const table = planePackingTable(layout);
  const packed = new Uint8Array(Math.ceil(numField / 4));
  const packRow = packedRowSource(fill);
  const numPlanes = layout.numPlanes;
  return (rowFirst, rowEnd) => {
    for (let r = rowFirst; r < rowEnd; r++) {
      packRow(shape.vectorFirst + r, packed);
      packRowPlanes(table, packed, 0, numField, { words: fill.words, rowBase: r * numPlanes * fill.wordsPerPlane, numPlanes, wordsPerPlane: fill.wordsPerPlane });
    }
  };
}

/** Packed codes (SPEC §1 bytes) of global vector `v` on the slab's fields. */
function packedRowSource(fill: SyntheticBlockFill): (v: number, out: Uint8Array) => void {
  const { fieldFirst, numFieldLocal } = fill.shape;
  if (fill.problem === 'random') {
    return (v, out) => fillRandomProblemRowPacked(v, fieldFirst, fill.numField, numFieldLocal, out, 0);
  }
  const problem = new AnalyticProblem(fill.numVector, fill.numField);
  const groups = problem.groupsOfFields(fieldFirst, numFieldLocal);
  return (v, out) => problem.fillRowPacked(v, groups, out, 0);
}
