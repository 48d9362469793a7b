// Band tasks of a windowed 2-way run on the CPU: consecutive panels of one step, computed (the CPU kernel set's GEMM
// in the worker's own thread, PopcountGemm.threadKernel) and finalized by one finalize worker. A windowed run's panels
// are small (~30 k pairs at 100,000 SNPs, 1 Mb): a message per panel to the kernel workers and a finalize of each on the
// main thread cost more than their GEMM. Here the main thread posts one task per band and merges outcomes in order.
import { openThreadGemm, type PlaneWordRange, type TermGroup, type ThreadGemm, type ThreadGemmKernel } from '../../mgemm/index.js';
import type { FinalizeContext, PairBlock, VectorBlockView } from '../../analyses/index.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { WINDOW_SUB_BLOCK_ROWS, windowSubBlocks, type PanelGeometry } from '../pipeline/windowPanels.js';

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

/** What the finalize pool offers band tasks (hostFinalizer.ts): run one on a worker, merge an outcome into the rank. */
export interface PairBandRunner<Outcome> {
  readonly numThreads: number;
  /** Posts a band (its blocks moved to shared memory once); resolves with the worker's outcome. */
  start(task: PairBandTask): Promise<Outcome>;
  /** Adds an outcome's checksum part, records, histogram counts and checks to the rank's sink: call in band order. */
  apply(outcome: Outcome): void;
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
