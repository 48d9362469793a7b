// Host finalize of a rank: panels of pairs, batches of j-slices and quad tiles turned into values, thresholds,
// checksum and records — on this thread (one thread), or in row ranges / slice ranges on a finalize pool whose
// results are combined here in task order, so that checksum, counts and output files are those of one thread.
import { traced } from '../../core/trace.js';
import { toSharedPlaneMatrix } from '../../mgemm/index.js';
import type {
  BlockPairCounts, FinalizeContext, PairBlock, PairCounts, QuadTileView, TripleSlice, VectorBlockView,
} from '../../analyses/index.js';
import type { FinalizerSpec } from './finalizers.js';
import {
  createFinalizePool, LocalFinalizer, type FinalizeOutcome, type FinalizePool, type FinalizeSetup, type QuadTileRun, type TripleSliceRun,
} from './finalizeTasks.js';
import type { RankFinalize } from './rankFinalize.js';
import { PanelValueCapture, type PanelValueTarget } from './panelValues.js';
import { inlineBandRunner, pooledBandRunner, type PairBandRunner } from './pairBands.js';
import { pairsOfPanel, panelRows, quadRowParts, quadsOfRow, quadTileRows, rowParts, sliceParts, tuplesPerTask } from './finalizeParts.js';
import { hostPlanesOf, hostPlanesReady, withHostPlanes } from '../blocks/codeRowPlanes.js';

/**
 * Pairs per pool task at most, and per event-loop yield on one thread: ~10–30 ms of finalize, so that a task's
 * message costs well under 1 % of it and one thread still lets worker replies, progress and Ctrl-C in between.
 */
const MAX_PAIRS_PER_TASK = 1 << 18;

/**
 * Pairs per pool task at least. Between the two bounds a panel is cut into TASKS_PER_THREAD tasks per thread (many
 * threads), so that threads that finish early find work and a panel's last tasks end together.
 */
const MIN_PAIRS_PER_TASK = 1 << 17;

/** Triples per pool task, at most and at least (a triple's eight entries cost about what two pairs' eight do). */
const MAX_TRIPLES_PER_TASK = 1 << 17;
const MIN_TRIPLES_PER_TASK = 1 << 16;

/**
 * Triples finalized between yields on one thread, so that the next batch's mGEMM3 advances meanwhile: CPU kernel
 * sets post its slices to worker threads one after another, each on the previous one's reply. ~1 ms of finalize
 * per yield; a yield costs a few microseconds.
 */
const TRIPLES_PER_YIELD = 1 << 12;

/**
 * Quadruples per pool task, at most and at least (~0.5–2.5 µs each: K2 to IG), and per event-loop yield on one
 * thread; a full tile (128 × 256 row × column pairs) then makes 2–8 tasks.
 */
const MAX_QUADS_PER_TASK = 1 << 14;
const MIN_QUADS_PER_TASK = 1 << 12;
const QUADS_PER_YIELD = 1 << 13;

/** Finalize of the tallies that come back to the host, into the rank's `ctx.sink` and `ctx.verifier`. */
export interface HostFinalizer {
  /**
   * Finalizes a panel of pairs (`tallies`: term groups, numRows × numCols each); returns its pairs. With `values` (a
   * dense-matrix run) every pair's value also goes there (panelValues.ts).
   */
  finalizePairs(block: PairBlock, tallies: readonly Uint32Array[], values?: PanelValueTarget): Promise<number>;
  /** Finalizes consecutive j-slices in order; `onTriples(n)` as parts of them are done; returns their triples. */
  finalizeTriples(run: TripleSliceRun, onTriples: (numTriples: number) => void): Promise<number>;
  /** Finalizes a quad tile's rows in order; `onQuads(n)` as parts of them are done; returns its quadruples. */
  finalizeQuads(run: QuadTileRun, onQuads: (numQuads: number) => void): Promise<number>;
  /** Where a CPU run's band tasks (pairBands.ts) run: on the pool, or on this thread. */
  readonly bands?: PairBandRunner;
  /** Ends its worker threads, if any. */
  close(): Promise<void>;
}

export interface HostFinalizerOptions {
  /** Threads that finalize: the rank's kernel threads. 1 finalizes on the calling thread. */
  readonly numThreads: number;
  /** Start the threads now, in the background, rather than on the first task (default false). */
  readonly startNow?: boolean;
  /** A windowed CPU run's bands (pairBands.ts): the calling thread is one of `numThreads`, the pool has one fewer. */
  readonly windowBands?: boolean;
  /**
   * Threads of another's that run the tasks (the kernel set's, hosting finalizeGuestSpec(finalizeSetupOf(…))); absent
   * or null: a finalize pool of the finalizer's own.
   */
  readonly pool?: FinalizePool | null;
}

/** What the finalize workers of a rank need (`rank`: its analysis run, sink and verifier; `finalizers`: how to load it). */
export function finalizeSetupOf(rank: RankFinalize, finalizers: FinalizerSpec): FinalizeSetup {
  return {
    finalizers, numVector: rank.numVector, numField: rank.numField,
    threshold: rank.sink.threshold, writesRecords: rank.sink.writesRecords, verify: rank.verifier !== null,
    histogram: rank.sink.histogram !== null, top: rank.top ?? null,
    window: rank.sink.window,
  };
}

/**
 * The host finalizer of a rank (`rank`: its analysis run, sink and verifier; `finalizers`: how its workers load the
 * same analysis); without `startNow`, a pool starts on its first task (ranks that never finalize start none).
 */
export function createHostFinalizer(rank: RankFinalize, finalizers: FinalizerSpec, options: HostFinalizerOptions): HostFinalizer {
  const inline = new InlineHostFinalizer(rank);
  if (options.numThreads > 1) {
    const callerComputes = options.windowBands === true;
    const pooled = new PooledHostFinalizer(rank, finalizeSetupOf(rank, finalizers), options.numThreads - (callerComputes ? 1 : 0), inline, {
      callerComputes, borrowedPool: options.pool ?? null,
    });
    if (options.startNow === true) pooled.startInBackground();
    return pooled;
  }
  return inline;
}

/** Lets the event loop run (worker replies, GPU completions) during a long finalize on this thread. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Everything on the calling thread, yielding to the event loop now and then. */
class InlineHostFinalizer implements HostFinalizer {
  readonly bands: PairBandRunner;

  constructor(private readonly rank: RankFinalize) {
    this.bands = inlineBandRunner(rank);
  }

  async finalizePairs(given: PairBlock, tallies: readonly Uint32Array[], values?: PanelValueTarget): Promise<number> {
    const pairs = this.rank.analysis.pairs;
    if (pairs === null) throw new Error('pairs to finalize for an analysis run without pairs');
    // A GPU run's own block may be held as codes; an analysis's finalize may read planes.
    await hostPlanesReady(given.rows.planes);
    await hostPlanesReady(given.cols.planes);
    const block = withHostPlanes(given);
    const ctx: FinalizeContext = values === undefined ? this.rank : { sink: new PanelValueCapture(this.rank.sink, values), verifier: this.rank.verifier };
    let numPairs = 0;
    for (const { r0, r1 } of rowParts(block, MAX_PAIRS_PER_TASK)) {
      if (r0 > 0) await yieldToEventLoop();
      const part = panelRows(block, tallies, r0, r1);
      numPairs += pairs.finalize(ctx, part.block, part.tallies);
    }
    return numPairs;
  }

  async finalizeTriples(run: TripleSliceRun, onTriples: (numTriples: number) => void): Promise<number> {
    const triples = this.rank.analysis.triples;
    if (triples === null) throw new Error('triples to finalize for an analysis run without triples');
    let numTriples = 0;
    for (const part of sliceParts(run, TRIPLES_PER_YIELD)) {
      if (part.first > 0) await yieldToEventLoop();
      let done = 0;
      for (let s = part.first; s < part.end; s++) done += triples.finalize(this.rank, run.slices[s], run.tallies[s], run.pairCounts);
      numTriples += done;
      onTriples(done);
    }
    return numTriples;
  }

  async finalizeQuads(run: QuadTileRun, onQuads: (numQuads: number) => void): Promise<number> {
    const quads = this.rank.analysis.quads ?? null;
    if (quads === null) throw new Error('quadruples to finalize for an analysis run without them');
    let numQuads = 0;
    for (const { r0, r1 } of quadRowParts(run.tile, QUADS_PER_YIELD)) {
      if (r0 > 0) await yieldToEventLoop();
      const part = quadTileRows(run, r0, r1);
      const done = quads.finalize(this.rank, part.tile, part.tallies, part.vectorTallies);
      numQuads += done;
      onQuads(done);
    }
    return numQuads;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Row ranges of a panel, or slice ranges of a batch, as tasks on a finalize pool (core/taskWorkerPool.ts). Blocks and
 * tallies go to the workers in shared memory: the CPU kernel set's tallies already are (no copy); others (GPU
 * read-backs, sums over field slabs) are copied there once.
 */
class PooledHostFinalizer implements HostFinalizer {
  private pool: Promise<FinalizePool> | null = null;
  private readonly sharedBlocks = new WeakMap<VectorBlockView, VectorBlockView>();
  private readonly sharedPairCounts = new WeakMap<BlockPairCounts, BlockPairCounts>();
  readonly bands: PairBandRunner;

  constructor(
    private readonly rank: RankFinalize, private readonly setup: FinalizeSetup, private readonly numThreads: number,
    /** For work of one task at most: a round trip to a worker (or its start) would cost more than it saves. */
    private readonly inline: InlineHostFinalizer,
    options: { readonly callerComputes: boolean; readonly borrowedPool: FinalizePool | null },
  ) {
    if (options.borrowedPool !== null) this.pool = Promise.resolve(options.borrowedPool);
    this.bands = pooledBandRunner(numThreads, {
      pool: () => this.startedPool(), share: (block) => this.sharedBlock(block), apply: (outcome) => this.apply(outcome),
      local: () => new LocalFinalizer(setup, rank.analysis),
    }, { callerComputes: options.callerComputes });
  }

  async finalizePairs(block: PairBlock, tallies: readonly Uint32Array[], values?: PanelValueTarget): Promise<number> {
    const numPairs = pairsOfPanel(block);
    const perTask = tuplesPerTask(numPairs, this.numThreads, MIN_PAIRS_PER_TASK, MAX_PAIRS_PER_TASK);
    if (perTask >= numPairs) return this.inline.finalizePairs(block, tallies, values);
    if (values !== undefined && !(values.values.buffer instanceof SharedArrayBuffer)) throw new Error('panel values for finalize workers must be shared');
    const pool = await this.startedPool();
    await hostPlanesReady(block.rows.planes);
    await hostPlanesReady(block.cols.planes);
    const shared: PairBlock = { ...block, rows: this.sharedBlock(block.rows), cols: this.sharedBlock(block.cols) };
    const sharedTallies = tallies.map(sharedArray);
    const outcomes: Promise<FinalizeOutcome>[] = [];
    for (const { r0, r1 } of rowParts(block, perTask)) {
      const part = panelRows(shared, sharedTallies, r0, r1);
      outcomes.push(pool.run({ kind: 'pairs', block: part.block, tallies: part.tallies, values }));
    }
    return this.combineInOrder(outcomes, () => undefined);
  }

  async finalizeTriples(run: TripleSliceRun, onTriples: (numTriples: number) => void): Promise<number> {
    const numTriples = run.slices.reduce((sum, slice) => sum + slice.numI * slice.numK, 0);
    const perTask = tuplesPerTask(numTriples, this.numThreads, MIN_TRIPLES_PER_TASK, MAX_TRIPLES_PER_TASK);
    if (perTask >= numTriples) return this.inline.finalizeTriples(run, onTriples);
    const pool = await this.startedPool();
    const slices = run.slices.map((slice): TripleSlice => ({
      ...slice, iBlock: this.sharedBlock(slice.iBlock), jBlock: this.sharedBlock(slice.jBlock), kBlock: this.sharedBlock(slice.kBlock),
    }));
    const tallies = run.tallies.map((groups) => groups.map(sharedArray));
    const pairCounts = run.pairCounts === null ? null : this.sharedDensePairCounts(run.pairCounts);
    const outcomes: Promise<FinalizeOutcome>[] = [];
    for (const part of sliceParts(run, perTask)) {
      outcomes.push(pool.run({
        kind: 'triples', slices: slices.slice(part.first, part.end), tallies: tallies.slice(part.first, part.end),
        pairCounts,
      }));
    }
    return this.combineInOrder(outcomes, onTriples);
  }

  async finalizeQuads(run: QuadTileRun, onQuads: (numQuads: number) => void): Promise<number> {
    let numQuads = 0;
    for (let r = 0; r < run.tile.rowI.length; r++) numQuads += quadsOfRow(run.tile, r);
    const perTask = tuplesPerTask(numQuads, this.numThreads, MIN_QUADS_PER_TASK, MAX_QUADS_PER_TASK);
    if (perTask >= numQuads) return this.inline.finalizeQuads(run, onQuads);
    const pool = await this.startedPool();
    const shared: QuadTileRun = {
      tile: { ...run.tile, vectors: this.sharedBlock(run.tile.vectors) },
      tallies: run.tallies.map(sharedArray),
      vectorTallies: run.vectorTallies?.map(sharedArray) ?? null,
    };
    const outcomes: Promise<FinalizeOutcome>[] = [];
    for (const { r0, r1 } of quadRowParts(run.tile, perTask)) outcomes.push(pool.run({ kind: 'quads', ...quadTileRows(shared, r0, r1) }));
    return this.combineInOrder(outcomes, onQuads);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    // A pool that failed to start has nothing to close; its error surfaced where it was awaited.
    if (pool !== null) await pool.then((started) => started.close(), () => undefined);
  }

  /** Starts the pool's threads; a failure to start surfaces on the first task. */
  startInBackground(): void {
    this.startedPool().catch(() => undefined);
  }

  private startedPool(): Promise<FinalizePool> {
    this.pool ??= traced('finalize pool started', () => createFinalizePool(this.numThreads, this.setup));
    return this.pool;
  }

  /**
   * Adds each task's checksum part, records, histogram counts and checks to the rank's sink in task order (the order
   * one thread would have produced them in), as they come; returns the tuples.
   */
  private async combineInOrder(outcomes: readonly Promise<FinalizeOutcome>[], onTuples: (numTuples: number) => void): Promise<number> {
    // Every task's failure is awaited below or superseded by an earlier one's.
    for (const outcome of outcomes) outcome.catch(() => undefined);
    let numTuples = 0;
    for (const pending of outcomes) {
      const outcome = await pending;
      this.apply(outcome);
      numTuples += outcome.numTuples;
      onTuples(outcome.numTuples);
    }
    return numTuples;
  }

  /** Adds one task's checksum part, records, histogram counts and checks to the rank's sink. */
  private apply(outcome: FinalizeOutcome): void {
    const { sink, verifier } = this.rank;
    sink.checksum.merge(outcome.checksumLimbs, outcome.entries, outcome.zeros);
    sink.addRecordWords(outcome.recordWords, outcome.numRecords);
    if (outcome.histogram !== null) sink.addHistogramCounts(outcome.histogram);
    if (verifier !== null) verifier.numChecked += outcome.numVerified;
  }

  /** `block` with its planes, sums and counts in shared memory (copied there once per block if they are not). */
  private sharedBlock(block: VectorBlockView): VectorBlockView {
    let shared = this.sharedBlocks.get(block);
    if (shared === undefined) {
      shared = { ...block, planes: toSharedPlaneMatrix(hostPlanesOf(block.planes)), sums: sharedArray(block.sums), counts: sharedArray(block.counts) };
      this.sharedBlocks.set(block, shared);
    }
    return shared;
  }

  private sharedDensePairCounts(counts: BlockPairCounts): BlockPairCounts {
    let shared = this.sharedPairCounts.get(counts);
    if (shared === undefined) {
      const share = (pc: PairCounts): PairCounts => {
        const groups = pc.groups?.map(sharedArray);
        return { data: groups?.[0] ?? sharedArray(pc.data), numCols: pc.numCols, ...(groups === undefined ? {} : { groups }) };
      };
      const ij = share(counts.ij);
      const ji = counts.ji === null ? null : counts.ji === counts.ij ? ij : share(counts.ji);
      shared = { ij, ik: counts.ik === counts.ij ? ij : share(counts.ik), jk: share(counts.jk), ji };
      this.sharedPairCounts.set(counts, shared);
    }
    return shared;
  }
}

/** `array` itself if it lies in shared memory, else a copy that does. */
function sharedArray<T extends Uint32Array | Float64Array>(array: T): T {
  if (array.buffer instanceof SharedArrayBuffer) return array;
  const Kind = array.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Kind(new SharedArrayBuffer(array.byteLength));
  copy.set(array);
  return copy;
}
