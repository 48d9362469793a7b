// The 2-way pipeline of one rank: its block-circulant steps, each a popcount-GEMM of its own block
// against a column block, reduced over field slabs, then finalized by field rank 0.
import type { PopcountGemm } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { finalizePairs } from './finalize2.js';
import { finalizeR2Pairs, termGroupsR2 } from './finalizeR2.js';
import type { MetricContext } from './metricContext.js';
import { termGroups2 } from './tallyLayout.js';
import type { VectorBlock } from './vectorBlock.js';

/** One block of the rank's block row: its column block and whether it is the diagonal block. */
export interface PairStep {
  readonly colBlock: number;
  readonly isDiagonalBlock: boolean;
}

/** Bounds the tally memory of one GEMM call (rows are processed in panels of this many output bytes). */
const TALLY_BYTES_PER_CALL = 32 << 20;

export interface PipelineEnv {
  readonly ctx: MetricContext;
  readonly gemm: PopcountGemm;
  /** Ranks that share this rank's vectors and differ in field slab; tallies are summed over it. */
  readonly fieldComm: Communicator;
  readonly getBlock: (blockIdx: number) => Promise<VectorBlock>;
  /** Called with the number of comparisons (pairs or triples × fields) just finished. */
  readonly onWork: (comparisons: number) => void;
}

/** Sum of partial tallies over field slabs (a no-op without field decomposition). */
export async function reduceOverFields(fieldComm: Communicator, tallies: Uint32Array[]): Promise<Uint32Array[]> {
  if (fieldComm.size === 1) return tallies;
  return Promise.all(tallies.map((t) => fieldComm.allReduceSum(t)));
}

/** Unique pairs of a step, for progress accounting. */
export function pairsOfStep(rows: VectorBlock, cols: VectorBlock, step: PairStep): number {
  const n = rows.numVectorReal;
  return step.isDiagonalBlock ? (n * (n - 1)) / 2 : n * cols.numVectorReal;
}

/** Runs the rank's 2-way steps; returns the number of pairs finalized here. */
export async function runPairSteps(env: PipelineEnv, own: VectorBlock, steps: readonly PairStep[]): Promise<number> {
  const isR2 = env.ctx.spec.metric === 'r2';
  const groups = isR2 ? termGroupsR2(env.ctx.spec.sparse) : termGroups2(env.ctx.layout);
  const isFinalizer = env.fieldComm.rank === 0;
  let numPairs = 0;
  for (const step of steps) {
    const cols = step.isDiagonalBlock ? own : await env.getBlock(step.colBlock);
    const numRows = own.numVectorReal;
    const rowsPerCall = Math.max(1, Math.floor(TALLY_BYTES_PER_CALL / (4 * groups.length * Math.max(1, cols.numVectorReal))));
    for (let rowFirst = 0; rowFirst < numRows; rowFirst += rowsPerCall) {
      const rowCount = Math.min(rowsPerCall, numRows - rowFirst);
      // On the diagonal block only columns right of the panel's first row hold unique pairs.
      const colFirst = step.isDiagonalBlock ? rowFirst : 0;
      const colCount = cols.numVectorReal - colFirst;
      if (colCount <= 0) continue;
      const partial = await env.gemm.run({
        a: own.planes, aFirst: rowFirst, aCount: rowCount,
        b: cols.planes, bFirst: colFirst, bCount: colCount,
        termGroups: groups, strictUpper: step.isDiagonalBlock,
      });
      const tallies = await reduceOverFields(env.fieldComm, partial);
      const block = {
        rows: own, rowFirst, numRows: rowCount, cols, colFirst, numCols: colCount, strictUpper: step.isDiagonalBlock,
      };
      const done = isFinalizer ? (isR2 ? finalizeR2Pairs : finalizePairs)(env.ctx, block, tallies) : pairsInPanel(block);
      if (isFinalizer) numPairs += done;
      env.onWork(done * env.ctx.numField);
    }
  }
  return numPairs;
}

function pairsInPanel(b: { numRows: number; numCols: number; strictUpper: boolean }): number {
  if (!b.strictUpper) return b.numRows * b.numCols;
  let n = 0;
  for (let r = 0; r < b.numRows; r++) n += Math.max(0, b.numCols - r - 1);
  return n;
}
