// The windowed 2-way pipeline on the CPU kernel set: the rank's panels (the same as on every backend, windowPanels.ts)
// in bands of consecutive panels of one step, each computed and finalized by one finalize worker (finalize/pairBands.ts)
// while the main thread only posts bands and merges their outcomes in band order — so checksum, counts and record
// files are those of the panel-by-panel path.
import type { PairBlock } from '../../analyses/index.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import type { ThreadGemmKernel } from '../../mgemm/index.js';
import type { PairBandRunner, PairBandTask } from '../finalize/pairBands.js';
import type { VectorBlockView } from '../../analyses/index.js';
import { planeWordRangesOf } from '../blocks/planePacking.js';
import { keptPairsInPanel, pairsInPanel } from './panelPairs.js';
import type { PairStepsOutcome, PipelineEnv } from './pipeline2.js';
import type { RankFinalize } from '../finalize/rankFinalize.js';
import type { Communicator } from '../../parallel/index.js';

/** What a windowed run's bands need: the finalize pool's band runner, the kernel its workers open, the window. */
export interface WindowBands {
  readonly runner: PairBandRunner;
  readonly kernel: ThreadGemmKernel;
  readonly window: PairWindowLimits;
}

/**
 * The bands of a run, where they apply: an LD window, host finalize, a CPU kernel set that lends its GEMM to other
 * threads, no field slabs (tallies summed across ranks) and no dense matrix; else null.
 */
export function windowBandsOf(env: PipelineEnv): WindowBands | null {
  const window = env.run.sink.window;
  const runner = env.hostFinalizer.bands;
  const kernel = env.gemm.threadKernel;
  if (window === null || runner === undefined || kernel === undefined || !computesInWindowBands(env.run, env.fieldComm)) return null;
  return { runner, kernel, window };
}

/**
 * Whether a 2-way run with a kernel set that lends its GEMM (the CPU's) computes in bands: an LD window, no field slabs
 * (tallies summed across ranks) and no dense matrix. Such a run's kernel set is opened without threads (rankRun.ts).
 */
export function computesInWindowBands(run: RankFinalize, fieldComm: Communicator): boolean {
  return run.sink.window !== null && run.analysis.pairs !== null && fieldComm.size === 1 && (run.matrix ?? null) === null;
}

/**
 * Pairs of a band at most: ~10 ms of GEMM and finalize on one thread (100,000 SNPs × 1,000 samples, r²), so that a
 * band's message and merge cost ~1 % of it and its records (12 bytes a pair at most) stay a few MiB.
 */
const MAX_BAND_PAIRS = 1 << 17;
/** Pairs of a band at least (small runs): below it a band's message costs about what its work does. */
const MIN_BAND_PAIRS = 1 << 10;
/** Bands per thread of a rank's window pairs at least, so that threads that finish early find work. */
const BANDS_PER_THREAD = 8;
/** Bands posted and not yet merged, per thread: each worker has its next band queued when it finishes one. */
const BANDS_IN_FLIGHT_PER_THREAD = 2;

/** Pairs per band of a rank: its window pairs (rows of `own`) over BANDS_PER_THREAD per thread, within the bounds. */
export function bandPairsOf(window: PairWindowLimits, own: VectorBlockView, numThreads: number): number {
  let numWindowPairs = 0;
  for (let v = own.vectorFirst; v < own.vectorFirst + own.numVectorReal; v++) numWindowPairs += window.bandEnd[v] - v - 1;
  const byThreads = Math.ceil(numWindowPairs / (BANDS_PER_THREAD * numThreads));
  return Math.max(MIN_BAND_PAIRS, Math.min(MAX_BAND_PAIRS, byThreads));
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
 * Runs the rank's panels as bands: at most BANDS_IN_FLIGHT_PER_THREAD per thread posted ahead, each merged into the
 * rank's sink in order as it completes (before a later band is merged).
 */
export async function runWindowBands(
  env: PipelineEnv, bands: WindowBands, own: VectorBlockView, panels: AsyncIterable<{ readonly block: PairBlock }>,
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
  for await (const blocks of bandsOf(panels, bandPairsOf(window, own, runner.numThreads))) {
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
