// The 2-way pipeline in bands on the CPU kernel set: a windowed run's panels (the same as on every backend,
// windowPanels.ts) in bands of consecutive panels of one step, or — an analysis with its own dense bands
// (PairBandFinalize.finalizeDenseBand) — each panel's rows in bands; each band computed and finalized by one finalize
// thread (finalize/pairBands.ts) while the main thread only posts bands and merges their outcomes in band order — so
// checksum, counts and record files are those of the panel-by-panel path.
import type { PairBlock } from '../../analyses/index.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import type { ThreadGemmKernel } from '../../mgemm/index.js';
import type { PairBandRunner, PairBandTask } from '../finalize/pairBands.js';
import type { VectorBlockView } from '../../analyses/index.js';
import { planeWordRangesOf } from '../blocks/planePacking.js';
import { keptPairsInPanel, pairsInPanel, pairsOfStep } from './panelPairs.js';
import type { PairStep, PairStepsOutcome, PipelineEnv } from './pipeline2.js';
import type { RankFinalize } from '../finalize/rankFinalize.js';
import type { Communicator } from '../../parallel/index.js';

/** What a run's bands need: the finalize pool's band runner, the kernel its workers open, the window (null: dense bands), a band's pairs. */
export interface PairBands {
  readonly runner: PairBandRunner;
  readonly kernel: ThreadGemmKernel;
  readonly window: PairWindowLimits | null;
  readonly pairsPerBand: number;
}

/**
 * The bands of a rank (`own`, its `steps`), where they apply: host finalize, a CPU kernel set that lends its GEMM to
 * other threads, no field slabs (tallies summed across ranks), no dense matrix, and an LD window or an analysis with its
 * own dense bands; else null.
 */
export function pairBandsOf(env: PipelineEnv, own: VectorBlockView, steps: readonly PairStep[]): PairBands | null {
  const window = env.run.sink.window;
  const runner = env.hostFinalizer.bands;
  const kernel = env.gemm.threadKernel;
  if (runner === undefined || kernel === undefined) return null;
  if (window !== null) {
    if (!computesInWindowBands(env.run, env.fieldComm)) return null;
    return { runner, kernel, window, pairsPerBand: bandPairsOf(window, own, runner.numThreads) };
  }
  if (!computesInDenseBands(env.run, env.fieldComm)) return null;
  const numPairs = steps.reduce((sum, step) => sum + pairsOfStep(step), 0);
  return { runner, kernel, window, pairsPerBand: boundedBandPairs(numPairs, runner.numThreads) };
}

/**
 * Whether a 2-way run with a kernel set that lends its GEMM (the CPU's) computes in bands: an LD window, no field slabs
 * (tallies summed across ranks) and no dense matrix. Such a run's kernel set is opened without threads (rankRun.ts).
 */
export function computesInWindowBands(run: RankFinalize, fieldComm: Communicator): boolean {
  return run.sink.window !== null && run.analysis.pairs !== null && fieldComm.size === 1 && (run.matrix ?? null) === null;
}

/**
 * Whether such a run without an LD window computes in dense bands: its analysis computes them (finalizeDenseBand), no
 * field slabs, no dense matrix. Its bands run where its finalize tasks would: on the kernel set's threads.
 */
export function computesInDenseBands(run: RankFinalize, fieldComm: Communicator): boolean {
  return run.sink.window === null && run.analysis.pairs?.finalizeDenseBand !== undefined && fieldComm.size === 1 && (run.matrix ?? null) === null;
}

/**
 * Pairs of a band at most: ~10 ms of GEMM and finalize on one thread (100,000 SNPs × 1,000 samples, r²; a dense
 * epistasis band ~2 ms), so that a band's message and merge cost ~1 % of it and its records (12 bytes a pair at most)
 * stay a few MiB.
 */
const MAX_BAND_PAIRS = 1 << 17;
/** Pairs of a band at least (small runs): below it a band's message costs about what its work does. */
const MIN_BAND_PAIRS = 1 << 10;
/** Bands per thread of a rank's (window) pairs at least, so that threads that finish early find work. */
const BANDS_PER_THREAD = 8;
/** Bands posted and not yet merged, per thread: each worker has its next band queued when it finishes one. */
const BANDS_IN_FLIGHT_PER_THREAD = 2;

/** Pairs per band of `numPairs` on `numThreads`: BANDS_PER_THREAD per thread, within the bounds. */
function boundedBandPairs(numPairs: number, numThreads: number): number {
  return Math.max(MIN_BAND_PAIRS, Math.min(MAX_BAND_PAIRS, Math.ceil(numPairs / (BANDS_PER_THREAD * numThreads))));
}

/** Pairs per band of a rank: its window pairs (rows of `own`) over BANDS_PER_THREAD per thread, within the bounds. */
export function bandPairsOf(window: PairWindowLimits, own: VectorBlockView, numThreads: number): number {
  let numWindowPairs = 0;
  for (let v = own.vectorFirst; v < own.vectorFirst + own.numVectorReal; v++) numWindowPairs += window.bandEnd[v] - v - 1;
  return boundedBandPairs(numWindowPairs, numThreads);
}

/**
 * Consecutive panels in bands: a band ends once it holds `pairsPerBand` pairs or where the next panel has other blocks
 * (another step). Every panel once, in order.
 */
export async function* bandsOf(panels: AsyncIterable<{ readonly block: PairBlock }>, pairsPerBand: number): AsyncGenerator<PairBlock[]> {
  let band: PairBlock[] = [];
  let bandPairs = 0;
  for await (const { block } of panels) {
    const first = band[0];
    if (first !== undefined && (bandPairs >= pairsPerBand || first.rows !== block.rows || first.cols !== block.cols)) {
      yield band;
      band = [];
      bandPairs = 0;
    }
    band.push(block);
    bandPairs += pairsInPanel(block);
  }
  if (band.length > 0) yield band;
}

/**
 * Each panel's rows in bands of about `pairsPerBand` pairs, one panel part each, in order. A strictUpper panel's later
 * rows start their columns at their first row (splitting as pipeline2.ts splitPanelHead does: a GEMM's strictUpper
 * panel starts its rows and columns at one vector).
 */
export async function* rowBandsOf(panels: AsyncIterable<{ readonly block: PairBlock }>, pairsPerBand: number): AsyncGenerator<PairBlock[]> {
  for await (const { block } of panels) {
    let rowFirst = 0;
    while (rowFirst < block.numRows) {
      const first = rowFirst;
      let bandPairs = 0;
      while (rowFirst < block.numRows && bandPairs < pairsPerBand) {
        bandPairs += block.strictUpper ? Math.max(0, block.numCols - rowFirst - 1) : block.numCols;
        rowFirst++;
      }
      const skipped = block.strictUpper ? first : 0;
      if (block.numCols - skipped <= 0) break;
      yield [{ ...block, rowFirst: block.rowFirst + first, numRows: rowFirst - first, colFirst: block.colFirst + skipped, numCols: block.numCols - skipped }];
    }
  }
}

/**
 * Runs the rank's panels as bands: at most BANDS_IN_FLIGHT_PER_THREAD per thread posted ahead, each merged into the
 * rank's sink in order as it completes (before a later band is merged).
 */
export async function runPairBands(
  env: PipelineEnv, bands: PairBands, panels: AsyncIterable<{ readonly block: PairBlock }>,
): Promise<PairStepsOutcome> {
  const pairs = env.run.analysis.pairs;
  if (pairs === null) throw new Error('a 2-way run of an analysis without pairs');
  const termGroups = [...pairs.termGroups];
  const planeWordRanges = planeWordRangesOf(env.run.analysis.planes);
  const { runner, kernel, window } = bands;
  const inFlight: { readonly blocks: readonly PairBlock[]; readonly merge: Promise<() => void> }[] = [];
  let numPairs = 0;
  let numWindowPairs = 0;
  const mergeOldest = async (): Promise<void> => {
    const band = inFlight.shift();
    if (band === undefined) return;
    (await band.merge)();
    let done = 0;
    for (const block of band.blocks) {
      done += pairsInPanel(block);
      numWindowPairs += keptPairsInPanel(block, window);
    }
    numPairs += done;
    env.onWork(done * env.run.numField);
  };
  const bandBlocks = window === null ? rowBandsOf(panels, bands.pairsPerBand) : bandsOf(panels, bands.pairsPerBand);
  for await (const blocks of bandBlocks) {
    if (inFlight.length >= BANDS_IN_FLIGHT_PER_THREAD * runner.numThreads) await mergeOldest();
    const { rows, cols } = blocks[0];
    const task: PairBandTask = {
      kind: 'pairBand', rows, cols, termGroups, planeWordRanges, kernel,
      panels: blocks.map(({ rowFirst, numRows, colFirst, numCols, strictUpper }) => ({ rowFirst, numRows, colFirst, numCols, strictUpper })),
    };
    const merge = runner.start(task);
    // A band that fails while earlier ones are merged surfaces when it is merged.
    merge.catch(() => undefined);
    inFlight.push({ blocks, merge });
  }
  while (inFlight.length > 0) await mergeOldest();
  return { numPairs, numDevicePairs: 0, numDeviceRecords: 0, numWindowPairs };
}
