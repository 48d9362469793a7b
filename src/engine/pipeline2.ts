// The 2-way pipeline of one rank: its block-circulant steps, each a popcount-GEMM of its own block
// against a column block, reduced over field slabs, then finalized by field rank 0.
import type { PopcountGemm } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { finalizePairs, type PairBlock } from './finalize2.js';
import { finalizeR2Pairs, termGroupsR2 } from './finalizeR2.js';
import { runOneAhead } from './lookahead.js';
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

/** One GEMM call of a step: a panel of the rank's rows against the step's columns. */
interface PairPanel {
  readonly block: PairBlock;
}

/** The panels of the rank's steps, in order; column blocks are awaited as the steps come up. */
async function* pairPanels(env: PipelineEnv, own: VectorBlock, steps: readonly PairStep[], numGroups: number): AsyncGenerator<PairPanel> {
  for (const step of steps) {
    const cols = step.isDiagonalBlock ? own : await env.getBlock(step.colBlock);
    const numRows = own.numVectorReal;
    const rowsPerCall = Math.max(1, Math.floor(TALLY_BYTES_PER_CALL / (4 * numGroups * Math.max(1, cols.numVectorReal))));
    for (let rowFirst = 0; rowFirst < numRows; rowFirst += rowsPerCall) {
      const rowCount = Math.min(rowsPerCall, numRows - rowFirst);
      // On the diagonal block only columns right of the panel's first row hold unique pairs.
      const colFirst = step.isDiagonalBlock ? rowFirst : 0;
      const colCount = cols.numVectorReal - colFirst;
      if (colCount <= 0) continue;
      yield {
        block: { rows: own, rowFirst, numRows: rowCount, cols, colFirst, numCols: colCount, strictUpper: step.isDiagonalBlock },
      };
    }
  }
}

/**
 * Runs the rank's 2-way steps; returns the number of pairs finalized here. The GEMM of the next panel is
 * started before the current one is finalized, so kernel threads compute while this thread finalizes.
 */
export async function runPairSteps(env: PipelineEnv, own: VectorBlock, steps: readonly PairStep[]): Promise<number> {
  const isR2 = env.ctx.spec.metric === 'r2';
  const groups = isR2 ? termGroupsR2(env.ctx.spec.sparse) : termGroups2(env.ctx.layout);
  const finalize = isR2 ? finalizeR2Pairs : finalizePairs;
  const isFinalizer = env.fieldComm.rank === 0;
  const startGemm = (panel: PairPanel): Promise<Uint32Array[]> => {
    const b = panel.block;
    return env.gemm.run({
      a: b.rows.planes, aFirst: b.rowFirst, aCount: b.numRows,
      b: b.cols.planes, bFirst: b.colFirst, bCount: b.numCols,
      termGroups: groups, strictUpper: b.strictUpper,
    });
  };
  let numPairs = 0;
  await runOneAhead(pairPanels(env, own, steps, groups.length), startGemm, async (panel, partial) => {
    const tallies = await reduceOverFields(env.fieldComm, partial);
    const done = isFinalizer ? finalize(env.ctx, panel.block, tallies) : pairsInPanel(panel.block);
    if (isFinalizer) numPairs += done;
    env.onWork(done * env.ctx.numField);
  });
  return numPairs;
}

function pairsInPanel(b: { numRows: number; numCols: number; strictUpper: boolean }): number {
  if (!b.strictUpper) return b.numRows * b.numCols;
  let n = 0;
  for (let r = 0; r < b.numRows; r++) n += Math.max(0, b.numCols - r - 1);
  return n;
}
