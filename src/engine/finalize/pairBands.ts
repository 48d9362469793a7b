// Band tasks of a 2-way run on the CPU: consecutive panels of one step (a windowed run), or a panel's rows (an analysis
// with its own dense bands), computed (the analysis's band finalize, else the CPU kernel set's GEMM in the worker's own
// thread, PopcountGemm.threadKernel) and finalized by one finalize worker. A windowed run's panels are small (~30 k pairs
// at 100,000 SNPs, 1 Mb): a message per panel to the kernel workers and a finalize of each on the main thread cost more
// than their GEMM; a dense band's tallies stay in cache between its GEMM and its finalize. Here the main thread posts
// one task per band and merges outcomes in order.
import { openThreadGemm, type PlaneWordRange, type TermGroup, type ThreadGemm, type ThreadGemmKernel } from '../../mgemm/index.js';
import type { FinalizeContext, PairAnalysis, VectorBlockView } from '../../analyses/index.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { WINDOW_SUB_BLOCK_ROWS, windowSubBlocks, type PanelGeometry } from '../pipeline/windowPanels.js';
import type { RankFinalize } from './rankFinalize.js';
import type { FinalizeOutcome } from './finalizeTasks.js';

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
      if (pairs === null) throw new Error('a band task for a run without pairs');
      worker ??= new PairBandWorker(rank.sink.window);
      worker.run(task, pairs, rank);
      return () => undefined;
    },
  };
}

/**
 * Bands a worker holds (running and queued) before the calling thread runs one itself: with one, a worker that finishes
 * waits for the calling thread to post its next band, which it does only between the bands it runs (~10 ms each).
 */
const QUEUED_BANDS_PER_WORKER = 2;

/** A pool that runs band tasks (the finalize pool, finalizeTasks.ts). */
interface BandTaskPool {
  run(task: PairBandTask): Promise<FinalizeOutcome>;
}

/** What a pool's band runner needs of its host finalizer (hostFinalizer.ts). */
export interface BandPool {
  /** The pool, started on the first call. */
  pool(): Promise<BandTaskPool>;
  /** A block in shared memory (copied there once). */
  share(block: VectorBlockView): VectorBlockView;
  /** Adds an outcome to the rank's sink. */
  apply(outcome: FinalizeOutcome): void;
  /** A finalizer of this thread that runs tasks as a worker does (its own sink; outcomes merged like a worker's). */
  local(): { run(task: PairBandTask): FinalizeOutcome };
}

/**
 * Bands on a finalize pool of `poolThreads` workers and, with `callerComputes`, the calling thread too: it runs a band
 * itself whenever every worker holds QUEUED_BANDS_PER_WORKER (a rank's bands then take one worker fewer — its start and
 * JIT are ~0.25 s of CPU on a 2-core machine — while the calling thread, which only merges, takes its share). While the workers start
 * (0.1–0.3 s, about a rank's input) the calling thread runs the bands in any case, so that the first ones do not wait.
 */
export function pooledBandRunner(poolThreads: number, pool: BandPool, options: { readonly callerComputes: boolean }): PairBandRunner {
  let started: BandTaskPool | null = null;
  let starting: Promise<void> | null = null;
  let startFailure: { readonly error: unknown } | null = null;
  let local: { run(task: PairBandTask): FinalizeOutcome } | null = null;
  let onPool = 0;
  // Bands decide where they run one after another, each after a turn of the event loop (the pool's ready message and
  // replies, merges of earlier bands), so that a band run here is followed by news of the workers before the next.
  let previous: Promise<void> = Promise.resolve();
  return {
    numThreads: poolThreads + (options.callerComputes ? 1 : 0),
    start: async (task) => {
      // The pool starts with the first band, if it has not; a failure to start fails the bands after it.
      starting ??= pool.pool().then((ready) => {
        started = ready;
      }, (error: unknown) => {
        startFailure = { error };
      });
      const turn = previous.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
      let decided = (): void => undefined;
      previous = new Promise<void>((resolve) => {
        decided = resolve;
      });
      try {
        await turn;
        if (startFailure !== null) throw startFailure.error;
        if (started === null || (options.callerComputes && onPool >= QUEUED_BANDS_PER_WORKER * poolThreads)) {
          local ??= pool.local();
          const outcome = local.run(task);
          return () => pool.apply(outcome);
        }
      } finally {
        decided();
      }
      onPool++;
      try {
        const outcome = await started.run({ ...task, rows: pool.share(task.rows), cols: pool.share(task.cols) });
        return () => pool.apply(outcome);
      } finally {
        onPool--;
      }
    },
  };
}

/**
 * The worker side: the analysis's own band finalize where it has one that takes the band (r²'s native window bands,
 * epistasis's dense ones), else each panel (with an LD window: its window sub-blocks) computed with its own GEMM and
 * finalized into `ctx`.
 */
export class PairBandWorker {
  private gemm: ThreadGemm | null = null;
  private scratch = new Uint32Array(0);

  /** `window`: the run's LD window, or null (a dense run's bands). */
  constructor(private readonly window: PairWindowLimits | null) {}

  /** Runs `task`; returns the pairs finalized (those of its sub-blocks: the pipeline counts its panels' pairs itself). */
  run(task: PairBandTask, pairs: PairAnalysis, ctx: FinalizeContext): number {
    const { rows, cols, termGroups, planeWordRanges } = task;
    const { window } = this;
    const own = window === null ? pairs.finalizeDenseBand?.(ctx, { rows, cols, panels: task.panels })
      : pairs.finalizeWindowBand?.(ctx, { rows, cols, panels: task.panels, window });
    if (own !== undefined && own !== null) return own;
    this.gemm ??= openThreadGemm(task.kernel);
    const vectorFirst = { rows: rows.vectorFirst, cols: cols.vectorFirst };
    let numPairs = 0;
    for (const panel of task.panels) {
      for (const sub of window === null ? [panel] : windowSubBlocks(panel, vectorFirst, window, WINDOW_SUB_BLOCK_ROWS)) {
        const tallies = this.talliesFor(termGroups.length, sub.numRows * sub.numCols);
        this.gemm.run({
          a: rows.planes, aFirst: sub.rowFirst, aCount: sub.numRows, b: cols.planes, bFirst: sub.colFirst, bCount: sub.numCols,
          termGroups, strictUpper: sub.strictUpper, planeWordRanges,
        }, tallies);
        numPairs += pairs.finalize(ctx, { rows, cols, ...sub }, tallies);
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
