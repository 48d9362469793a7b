// Finalize tasks of the finalize pool: what a task is, what it sends back, and how a worker runs one into a
// sink of its own (threshold, checksum partial, record words, --verify checks), whose small results the main
// thread combines in task order.
import { TaskWorkerPool, type GuestTaskRunner, type TaskResult, type WorkerGuestPreload, type WorkerGuestSpec } from '../../core/taskWorkerPool.js';
import type { Threshold } from '../../core/thresholds.js';
import type {
  AnalysisRef, AnalysisRun, BlockPairCounts, FinalizeContext, PairBlock, QuadTileView, TripleSlice, ValueVerifier,
} from '../../analyses/index.js';
import type { HistogramCounts } from '../../core/histogramLayout.js';
import { EntrySink, type RecordWriter } from './entrySink.js';
import { loadFinalizers, type FinalizerSpec } from './finalizers.js';
import { PanelValueCapture, type PanelValueTarget } from './panelValues.js';
import { HistogramCounter } from './histogramSink.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { TopRecords, type TakenRecords, type TopRecordsSpec } from './topRecordsSink.js';
import { PairBandWorker, type PairBandTask } from './pairBands.js';

/** Everything a finalize worker needs besides its tasks; plain data (the worker's `workerData`). */
export interface FinalizeSetup {
  readonly finalizers: FinalizerSpec;
  readonly numVector: number;
  readonly numField: number;
  readonly threshold: Threshold;
  /** Whether passing entries become output records (sent back as record words). */
  readonly writesRecords: boolean;
  /** --verify on an analytic problem: every value is checked against its expectation. */
  readonly verify: boolean;
  /** Count every value in the analysis's histogram layout (sent back per task); absent: no histogram. */
  readonly histogram?: boolean;
  /** A top-N run: each task sends back only its strongest records (absent or null: every passing record). */
  readonly top?: TopRecordsSpec | null;
  /** The run's LD window (its arrays in shared memory), or absent or null: every pair. */
  readonly window?: PairWindowLimits | null;
}

/** Consecutive j-slices of one mGEMM3 batch: `tallies[s]` are slice s's term groups. */
export interface TripleSliceRun {
  readonly slices: readonly TripleSlice[];
  readonly tallies: readonly (readonly Uint32Array[])[];
  /** The block-pair counts of the analysis's TriplePlan, or null. */
  readonly pairCounts: BlockPairCounts | null;
}

/** Rows of one mGEMM4 tile: `tallies[g]` numRows × numCols, `vectorTallies[g]` numRows × numVectorCols (or null). */
export interface QuadTileRun {
  readonly tile: QuadTileView;
  readonly tallies: readonly Uint32Array[];
  readonly vectorTallies: readonly Uint32Array[] | null;
}

/**
 * One task: rows of a panel of pairs, consecutive j-slices, rows of a quad tile, or a band of panels whose GEMM the
 * worker computes too (pairBands.ts); blocks and tallies in shared memory.
 */
export type FinalizeTask =
  | { readonly kind: 'pairs'; readonly block: PairBlock; readonly tallies: readonly Uint32Array[]; readonly values?: PanelValueTarget }
  | ({ readonly kind: 'triples' } & TripleSliceRun)
  | ({ readonly kind: 'quads' } & QuadTileRun)
  | PairBandTask;

/** What a task sends back: its part of the checksum and counts, and its records in finalize order. */
export interface FinalizeOutcome {
  readonly numTuples: number;
  readonly checksumLimbs: Float64Array;
  readonly entries: number;
  readonly zeros: number;
  readonly numVerified: number;
  /** `numRecords` records as the file lays them out (EntrySink's words); empty without records. */
  readonly recordWords: Uint32Array;
  readonly numRecords: number;
  /** The task's histogram counts, or null without a histogram. */
  readonly histogram: HistogramCounts | null;
}

/**
 * Where finalize tasks run: the CPU kernel set's own worker threads, which host this module's tasks as a guest
 * (finalizeGuest.ts, PopcountGemm.guestTasks), or a pool of finalize workers (finalizeWorker.ts) where the kernel set
 * has no worker threads (the GPU, `ref`, min-plus). Sharing the kernel threads: on 2 cores, 2 kernel workers and 2
 * finalize workers (and their isolates' compiling and garbage collection) made 2 threads 1.5–1.7× one; finalize tasks
 * go ahead of queued GEMM panels, so that the next panel's GEMM fills the threads while one finalize ends.
 */
export interface FinalizePool {
  run(task: FinalizeTask): Promise<FinalizeOutcome>;
  /** Ends the pool's own threads (a kernel set's threads end with the kernel set). */
  close(): Promise<void>;
}

/** The compiled worker entry and guest module, next to this file in dist/. */
const FINALIZE_WORKER_URL = new URL('./finalizeWorker.js', import.meta.url);
const FINALIZE_GUEST_URL = new URL('./finalizeGuest.js', import.meta.url);

/** Starts `numThreads` finalize workers for `setup` and waits until each has loaded its analysis. */
export function createFinalizePool(numThreads: number, setup: FinalizeSetup): Promise<FinalizePool> {
  return TaskWorkerPool.create<FinalizeTask, FinalizeOutcome>({ workerUrl: FINALIZE_WORKER_URL, numThreads, workerData: setup, name: 'finalize worker' });
}

/** The guest module that makes a kernel set's workers finalize for `setup` (PopcountGemmOptions.workerGuest). */
export function finalizeGuestSpec(setup: FinalizeSetup): WorkerGuestSpec {
  return { moduleUrl: FINALIZE_GUEST_URL.href, data: setup };
}

/** finalizeGuestSpec's module named before the run's setup is known: threads load it and `analysis` meanwhile. */
export function finalizeGuestPreload(analysis: AnalysisRef): WorkerGuestPreload {
  return { moduleUrl: FINALIZE_GUEST_URL.href, hint: analysis };
}

/** Finalize tasks on the threads of a kernel set that hosts finalizeGuestSpec's module, ahead of its queued GEMM tasks. */
export function guestFinalizePool(runner: GuestTaskRunner): FinalizePool {
  return {
    run: async (task) => (await runner.run(task, { urgent: true })) as FinalizeOutcome,
    close: () => Promise.resolve(),
  };
}

/** A finalize worker's (or guest's) setup: loads the analysis and returns how one task is run and answered. */
export async function startFinalizeTasks(setup: FinalizeSetup): Promise<(task: FinalizeTask) => TaskResult<FinalizeOutcome>> {
  const finalizer = new LocalFinalizer(setup, await loadFinalizers(setup.finalizers));
  return (task) => {
    const outcome = finalizer.run(task);
    // Record words and histogram counts are transferred, not copied.
    const histogram = outcome.histogram === null ? [] : [outcome.histogram.counts.buffer as ArrayBuffer];
    return { outcome, transfer: [outcome.recordWords.buffer as ArrayBuffer, ...histogram] };
  };
}

/** Collects the record words a sink flushes, in order, in a buffer that grows and is kept from task to task. */
class RecordCollector implements RecordWriter {
  private words = new Uint32Array(0);
  private numWords = 0;
  private numCollected = 0;

  constructor(private readonly stride: number) {}

  appendRecordWords(words: Uint32Array, numRecords: number): void {
    const count = numRecords * this.stride;
    if (this.numWords + count > this.words.length) {
      const grown = new Uint32Array(Math.max(this.numWords + count, 2 * this.words.length));
      grown.set(this.words.subarray(0, this.numWords));
      this.words = grown;
    }
    this.words.set(words.subarray(0, count), this.numWords);
    this.numWords += count;
    this.numCollected += numRecords;
  }

  /** The records collected since the last call, in a buffer of their own (to transfer), and their number. */
  take(): TakenRecords {
    const taken = { words: this.words.slice(0, this.numWords), numRecords: this.numCollected };
    this.numWords = 0;
    this.numCollected = 0;
    return taken;
  }
}

/**
 * Runs tasks in the calling thread (a finalize worker) into one sink kept for all of them (fresh buffers per task
 * would be fresh pages, whose faults cost several times more in a process whose threads run on several cores),
 * taking its checksum part and records after each.
 */
export class LocalFinalizer {
  private readonly verifier: ValueVerifier | null;
  private readonly records: (RecordWriter & { take(): TakenRecords }) | null;
  private readonly sink: EntrySink;
  private readonly ctx: FinalizeContext;
  /** Band tasks (pairBands.ts), opened on the first. */
  private bands: PairBandWorker | null = null;

  constructor(private readonly setup: FinalizeSetup, private readonly analysis: AnalysisRun) {
    const { numWay } = setup.finalizers.settings.spec;
    this.verifier = setup.verify ? analysis.analyticVerifier() : null;
    const top = setup.top ?? null;
    this.records = !setup.writesRecords ? null : top === null ? new RecordCollector(numWay + 1) : new TopRecords(numWay, top);
    const layout = setup.histogram === true ? analysis.histogramLayout?.() : undefined;
    if (setup.histogram === true && layout === undefined) throw new Error('a histogram for an analysis without one');
    const histogram = layout === undefined ? null : new HistogramCounter(layout);
    this.sink = new EntrySink(setup.numVector, numWay, setup.threshold, this.records, { histogram, window: setup.window ?? null });
    this.ctx = { sink: this.sink, verifier: this.verifier };
  }

  run(task: FinalizeTask): FinalizeOutcome {
    const { ctx, sink } = this;
    const checkedBefore = this.verifier?.numChecked ?? 0;
    let numTuples = 0;
    if (task.kind === 'pairs') {
      const pairs = this.analysis.pairs;
      if (pairs === null) throw new Error('a pairs task for an analysis run without pairs');
      // A dense-matrix run: the task's rows' values also go to the panel's shared array.
      const pairCtx = task.values === undefined ? ctx : { sink: new PanelValueCapture(sink, task.values), verifier: ctx.verifier };
      numTuples = pairs.finalize(pairCtx, task.block, task.tallies);
    } else if (task.kind === 'pairBand') {
      const pairs = this.analysis.pairs;
      if (pairs === null) throw new Error('a band task for a run without pairs');
      this.bands ??= new PairBandWorker(this.setup.window ?? null);
      numTuples = this.bands.run(task, pairs, ctx);
    } else if (task.kind === 'triples') {
      const triples = this.analysis.triples;
      if (triples === null) throw new Error('a triples task for an analysis run without triples');
      for (const [s, slice] of task.slices.entries()) numTuples += triples.finalize(ctx, slice, task.tallies[s], task.pairCounts);
    } else {
      const quads = this.analysis.quads ?? null;
      if (quads === null) throw new Error('a quads task for an analysis run without quadruples');
      numTuples = quads.finalize(ctx, task.tile, task.tallies, task.vectorTallies);
    }
    sink.flush();
    const checksum = sink.takeChecksum();
    checksum.normalize();
    const records = this.records?.take() ?? { words: new Uint32Array(0), numRecords: 0 };
    return {
      numTuples,
      checksumLimbs: checksum.limbs,
      entries: checksum.entries,
      zeros: checksum.zeros,
      numVerified: (this.verifier?.numChecked ?? 0) - checkedBefore,
      recordWords: records.words,
      numRecords: records.numRecords,
      histogram: sink.histogram?.take() ?? null,
    };
  }
}
