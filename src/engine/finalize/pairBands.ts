// Band tasks of a windowed 2-way run on the CPU: consecutive panels of one step, computed (the CPU kernel set's GEMM
// in the worker's own thread, PopcountGemm.threadKernel) and finalized by one finalize worker. A windowed run's panels
// are small (~30 k pairs at 100,000 SNPs, 1 Mb): a message per panel to the kernel workers and a finalize of each on the
// main thread cost more than their GEMM. Here the main thread posts one task per band and merges outcomes in order.
import { openThreadGemm, type PlaneWordRange, type TermGroup, type ThreadGemm, type ThreadGemmKernel } from '../../mgemm/index.js';
import type { FinalizeContext, PairBlock, VectorBlockView } from '../../analyses/index.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { WINDOW_SUB_BLOCK_ROWS, windowSubBlocks, type PanelGeometry } from '../pipeline/windowPanels.js';
import type { RankFinalize } from './rankFinalize.js';

/** One band: panels (local rows of `rows` × local columns of `cols`) in the order their records go to the file. */
export interface PairBandTask {
  readonly kind: 'pairBand';
  readonly rows: VectorBlockView;
  readonly cols: VectorBlockView;
  readonly panels: readonly PanelGeometry[];
  readonly termGroups: readonly TermGroup[];
  readonly planeWordRanges: readonly (PlaneWordRange | null)[] | null;
  readonly kernel: ThreadGemmKernel;
}

/**
 * Where band tasks run (hostFinalizer.ts): on a finalize pool, or on the calling thread. `start` resolves with the
 * band's merge into the rank's sink (checksum part, records, histogram counts, checks), to be called in band order.
 */
export interface PairBandRunner {
  readonly numThreads: number;
  start(task: PairBandTask): Promise<() => void>;
}

/**
 * Bands on the calling thread, straight into the rank's sink (one thread: no pool, nothing to merge), each after a
 * turn of the event loop (progress, signals) — a band is ~10 ms.
 */
export function inlineBandRunner(rank: RankFinalize): PairBandRunner {
  let worker: PairBandWorker | null = null;
  return {
    numThreads: 1,
    start: async (task) => {
      await new Promise((resolve) => setImmediate(resolve));
      const pairs = rank.analysis.pairs;
      const window = rank.sink.window;
      if (pairs === null || window === null) throw new Error('a band task for a run without pairs or without an LD window');
      worker ??= new PairBandWorker(window);
      worker.run(task, pairs.finalize, rank);
      return () => undefined;
    },
  };
}

/** The worker side: computes each panel's window sub-blocks with its own GEMM and finalizes them into `ctx`. */
export class PairBandWorker {
  private gemm: ThreadGemm | null = null;
  private scratch = new Uint32Array(0);

  constructor(private readonly window: PairWindowLimits) {}

  /** Runs `task`; returns the pairs finalized (those of its sub-blocks: the pipeline counts its panels' pairs itself). */
  run(task: PairBandTask, finalize: (ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]) => number, ctx: FinalizeContext): number {
    this.gemm ??= openThreadGemm(task.kernel);
    const { rows, cols, termGroups, planeWordRanges } = task;
    const vectorFirst = { rows: rows.vectorFirst, cols: cols.vectorFirst };
    let numPairs = 0;
    for (const panel of task.panels) {
      for (const sub of windowSubBlocks(panel, vectorFirst, this.window, WINDOW_SUB_BLOCK_ROWS)) {
        const tallies = this.talliesFor(termGroups.length, sub.numRows * sub.numCols);
        this.gemm.run({
          a: rows.planes, aFirst: sub.rowFirst, aCount: sub.numRows, b: cols.planes, bFirst: sub.colFirst, bCount: sub.numCols,
          termGroups, strictUpper: sub.strictUpper, planeWordRanges,
        }, tallies);
        numPairs += finalize(ctx, { rows, cols, ...sub }, tallies);
      }
    }
    return numPairs;
  }

  /** `numGroups` arrays of `size` u32 on one scratch buffer kept from sub-block to sub-block (cache-warm, no allocation). */
  private talliesFor(numGroups: number, size: number): Uint32Array[] {
    if (this.scratch.length < numGroups * size) this.scratch = new Uint32Array(Math.max(numGroups * size, 2 * this.scratch.length));
    return Array.from({ length: numGroups }, (_, g) => this.scratch.subarray(g * size, (g + 1) * size));
  }
}
