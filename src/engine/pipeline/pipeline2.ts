// The 2-way pipeline of one rank: its block-circulant steps, each a popcount-GEMM of its own block
// against a column block, reduced over field slabs, then finalized by field rank 0 — or, where the kernel
// set and the run allow it, finalized on the device where the tallies lie (the analysis's device finalizer, rankFinalize.ts).
import { traced, traceMark } from '../../core/trace.js';
import type { PopcountGemm } from '../../mgemm/index.js';
import type { Communicator, IndexRange } from '../../parallel/index.js';
import type { DevicePairFinalizer, PairBlock } from '../../analyses/index.js';
import type { HostFinalizer } from '../finalize/hostFinalizer.js';
import { devicePairFinalizer, type RankFinalize } from '../finalize/rankFinalize.js';
import { runOneAhead } from './lookahead.js';
import type { FinalizePlacement } from '../run/jobSpec.js';
import type { ReceivedBlocks, VectorBlock } from '../blocks/vectorBlock.js';
import { planeWordRangesOf } from '../blocks/planePacking.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { windowPanelRows, windowPanelsOf } from './windowPanels.js';
import { keptPairsInPanel, pairsInPanel, pairsOfStep } from './panelPairs.js';
import { pairBandsOf, runPairBands } from './windowBands.js';

export { pairsInPanel, pairsOfStep } from './panelPairs.js';

/**
 * One block of the rank's block row, or the part of it the plan gives this rank: its column block, whether it
 * is the diagonal block, and the local rows of the own block and local columns of the column block computed
 * (real vectors only; a `split` half-diagonal block has a half range on one side, parallel/blockCirculantPlan.ts).
 */
export interface PairStep {
  readonly colBlock: number;
  readonly isDiagonalBlock: boolean;
  readonly rowRange: IndexRange;
  readonly colRange: IndexRange;
}

/**
 * Pairs of one panel (one GEMM call; 16 MiB of tallies for dense CCC/DUO's one term group, 64 MiB for sparse's four,
 * 112 MiB for sparse r²'s seven). A rank's records come out panel by panel (row-major within one), so device
 * finalize with records cuts the same panels and writes the CPU run's file byte for byte. 4 Mi pairs give at most
 * 16 Mi records, 192 MiB at 12 bytes, within one storage binding of the GPUs measured (a device with smaller bindings
 * declines a panel whose records do not fit, and the host finalizes it); 8 Mi pairs made the H100's 2-way nv 32768
 * --threshold 0.6 --output run fall back to the host (when records were 8 bytes). Panels of 1 Mi pairs for sparse
 * runs (16 MiB of their four groups' tallies) kept three quarters of the H100 idle with records (nv 32768 nf 65536
 * --sparse --threshold 0.99 --output: compute 3.3–3.9 s against 0.92 s without --output); on the CPU (dev machine,
 * 2 cores) sparse nv 12288 nf 4096 ran the same, nv 6144 nf 8192 3 % slower.
 */
export const PAIRS_PER_PANEL = 1 << 22;

/**
 * A top-N run's host panel holds at most this many bytes of tallies: its records leave through the top-N sink in no
 * panel order, and the two panels alive at once are fresh memory faulted in page by page (epistasis's 8 groups at 4 Mi
 * pairs are 128 MiB a panel; 2-way 5,000 SNPs × 2,000 samples, 2 threads: 0.26 → 0.12 s of system CPU at 1 Mi pairs).
 */
const TOP_HOST_PANEL_TALLY_BYTES = 32 << 20;

/** Pairs of a host panel of `env`'s run (PAIRS_PER_PANEL, or fewer for a top-N run with many tally groups). */
function hostPairsPerPanel(env: PipelineEnv): number {
  if ((env.run.topRecords ?? null) === null) return PAIRS_PER_PANEL;
  const numGroups = env.run.analysis.pairs?.termGroups.length ?? 1;
  return Math.min(PAIRS_PER_PANEL, Math.max(TOP_MIN_PAIRS_PER_PANEL, Math.floor(TOP_HOST_PANEL_TALLY_BYTES / (4 * numGroups))));
}

export interface PipelineEnv {
  readonly run: RankFinalize;
  readonly gemm: PopcountGemm;
  /** Ranks that share this rank's vectors and differ in field slab; tallies are summed over it. */
  readonly fieldComm: Communicator;
  /** The blocks received from other ranks (the own block is passed to each pipeline directly). */
  readonly blocks: ReceivedBlocks;
  /** Whether panels may be finalized on the device (rankFinalize.ts). */
  readonly finalizePlacement: FinalizePlacement;
  /** Finalize of the tallies that come back to the host (one thread, or a pool of them). */
  readonly hostFinalizer: HostFinalizer;
  /** Called with the number of comparisons (pairs or triples × fields) just finished. */
  readonly onWork: (comparisons: number) => void;
}

/** Sum of partial tallies over field slabs (a no-op without field decomposition). */
export async function reduceOverFields(fieldComm: Communicator, tallies: Uint32Array[]): Promise<Uint32Array[]> {
  if (fieldComm.size === 1) return tallies;
  return Promise.all(tallies.map((t) => fieldComm.allReduceSum(t)));
}

/** One GEMM call of a step: a panel of the rank's rows against the step's columns. */
interface PairPanel {
  readonly block: PairBlock;
  /** A head of a top-N run's ramp (withRampUp): finished before the next panel starts, whose bar it tightens. */
  readonly rampHead?: boolean;
}

/**
 * Pairs per panel with device finalize and no records: tallies stay on the device, so panels can be large. With
 * records the panels are the host's: each panel's records come back in key order, so the same panels write the
 * CPU run's file byte for byte.
 */
export const DEVICE_PAIRS_PER_PANEL = 1 << 26;

/** Local rows × local columns of a step or panel; `strictUpper` (the diagonal block): only pairs with row < col. */
export interface PairRegion {
  readonly rowRange: IndexRange;
  readonly colRange: IndexRange;
  readonly strictUpper: boolean;
}

/**
 * Panels of `region` of `rows` × `cols`, about `pairsPerPanel` pairs each, as near square as the region allows:
 * a wide region cut only along its rows would give thin panels, i.e. GPU sub-blocks of a few row tiles (dispatches
 * of few workgroups, the whole column block expanded per panel). On the diagonal block (`strictUpper`) only
 * columns right of a row hold unique pairs: each row panel's square diagonal tile is `strictUpper`, the tiles right
 * of it are whole.
 */
export function* pairPanelsOf(rows: VectorBlock, cols: VectorBlock, region: PairRegion, pairsPerPanel: number): Generator<PairBlock> {
  const { rowRange, colRange, strictUpper } = region;
  const side = Math.max(1, Math.floor(Math.sqrt(pairsPerPanel)));
  if (strictUpper) {
    for (let rowFirst = rowRange.begin; rowFirst < rowRange.end; rowFirst += side) {
      const numRows = Math.min(side, rowRange.end - rowFirst);
      // Columns left of the panel's first row hold no unique pairs; the diagonal tile starts at that row.
      const diagonalFirst = Math.max(rowFirst, colRange.begin);
      const diagonalEnd = Math.min(rowFirst + numRows, colRange.end);
      if (diagonalEnd > diagonalFirst) {
        yield { rows, rowFirst, numRows, cols, colFirst: diagonalFirst, numCols: diagonalEnd - diagonalFirst, strictUpper: true };
      }
      for (const tile of columnTiles({ begin: Math.max(diagonalEnd, colRange.begin), end: colRange.end }, side)) {
        yield { rows, rowFirst, numRows, cols, colFirst: tile.begin, numCols: tile.end - tile.begin, strictUpper: false };
      }
    }
    return;
  }
  const tiles = columnTiles(colRange, side);
  const widest = Math.max(1, ...tiles.map((t) => t.end - t.begin));
  const rowsPerCall = Math.max(1, Math.floor(pairsPerPanel / widest));
  for (let rowFirst = rowRange.begin; rowFirst < rowRange.end; rowFirst += rowsPerCall) {
    const numRows = Math.min(rowsPerCall, rowRange.end - rowFirst);
    for (const tile of tiles) yield { rows, rowFirst, numRows, cols, colFirst: tile.begin, numCols: tile.end - tile.begin, strictUpper: false };
  }
}

/** `range` cut into the fewest equal tiles of at most `side` columns (none when it is empty). */
function columnTiles(range: IndexRange, side: number): IndexRange[] {
  const count = range.end - range.begin;
  if (count <= 0) return [];
  const numTiles = Math.ceil(count / side);
  return Array.from({ length: numTiles }, (_, t) => ({
    begin: range.begin + Math.floor((t * count) / numTiles),
    end: range.begin + Math.floor(((t + 1) * count) / numTiles),
  }));
}

/**
 * The panels of a step's region: all of it, or with an LD window only the tiles that touch its band (windowPanels.ts,
 * the same panels on every backend for a given panel size).
 */
export function stepPanelsOf(
  rows: VectorBlock, cols: VectorBlock, region: PairRegion, pairsPerPanel: number, window: PairWindowLimits | null,
): Generator<PairBlock> {
  if (window === null) return pairPanelsOf(rows, cols, region, pairsPerPanel);
  const rowsPerPanel = windowPanelRows(window, Math.max(1, Math.floor(Math.sqrt(pairsPerPanel))));
  return windowPanelsOf(rows, cols, region, window, { rowsPerPanel, pairsPerPanel });
}

/** The panels of the rank's steps, in order; column blocks are awaited as the steps come up. */
async function* pairPanels(env: PipelineEnv, own: VectorBlock, steps: readonly PairStep[], pairsPerPanel: number): AsyncGenerator<PairPanel> {
  for (const [s, step] of steps.entries()) {
    const cols = step.isDiagonalBlock ? own : await env.blocks.block(step.colBlock);
    // The next step's column block goes to the device while this step computes, its rows as they arrive (its
    // errors surface when the step awaits it).
    const next = steps[s + 1];
    if (env.gemm.prefetch !== undefined && next !== undefined && !next.isDiagonalBlock) {
      void env.blocks.arriving(next.colBlock).then((incoming) => env.gemm.prefetch?.(incoming.planes, incoming.rowsReady), () => undefined);
    }
    traceMark(`step: block ${own.blockIdx} × block ${step.colBlock}`);
    const region = { rowRange: step.rowRange, colRange: step.colRange, strictUpper: step.isDiagonalBlock };
    for (const block of stepPanelsOf(own, cols, region, pairsPerPanel, env.run.sink.window)) yield { block };
  }
}

/** Pairs finalized by a rank, how many of them on the device, and how many of them an LD window keeps. */
export interface PairStepsOutcome {
  /** Pairs computed (with a window: the pairs of the tiles that touch its band). */
  readonly numPairs: number;
  readonly numDevicePairs: number;
  /** Records the device finalize returned (passing the threshold and, in a top-N run, the records-only bar). */
  readonly numDeviceRecords: number;
  /** Pairs in the window among those computed (all of them without a window). */
  readonly numWindowPairs: number;
}

/**
 * Runs the rank's 2-way steps; returns the number of pairs finalized here. The GEMM of the next panel is
 * started before the current one is finalized, so kernel threads compute while the host finalizer works.
 * Where the kernel set and the run allow it, panels are finalized on the device (rankFinalize.ts).
 */
export async function runPairSteps(env: PipelineEnv, own: VectorBlock, steps: readonly PairStep[]): Promise<PairStepsOutcome> {
  const device = devicePairFinalizer(env.run, env.gemm, { placement: env.finalizePlacement, fieldComm: env.fieldComm });
  if (device !== null) return runPairStepsOnDevice(env, own, steps, device);
  // A CPU run in bands (an LD window, or an analysis's own dense bands): each computed and finalized on one finalize thread.
  // Dense bands are rows of the host path's panels, so that their records come in the same order.
  const bands = pairBandsOf(env, own, steps);
  if (bands !== null) return runPairBands(env, bands, pairPanels(env, own, steps, bands.window === null ? hostPairsPerPanel(env) : PAIRS_PER_PANEL));
  const host = hostPairFinalize(env);
  const window = env.run.sink.window;
  let numPairs = 0;
  let numWindowPairs = 0;
  await runOneAhead(pairPanels(env, own, steps, hostPairsPerPanel(env)), host.startGemm, async (panel, partial) => {
    const done = await host.finish(panel.block, partial);
    if (env.fieldComm.rank === 0) {
      numPairs += done;
      numWindowPairs += keptPairsInPanel(panel.block, window);
    }
    env.onWork(done * env.run.numField);
  });
  return { numPairs, numDevicePairs: 0, numDeviceRecords: 0, numWindowPairs };
}

/** Host finalize: GEMM tallies come back, are reduced over field slabs, and field rank 0 finalizes them. */
function hostPairFinalize(env: PipelineEnv): {
  readonly startGemm: (panel: PairPanel) => Promise<Uint32Array[]>;
  /** Finalizes a panel's partial tallies; returns its pairs. */
  readonly finish: (block: PairBlock, partial: Uint32Array[]) => Promise<number>;
} {
  const pairs = env.run.analysis.pairs;
  if (pairs === null) throw new Error('a 2-way run of an analysis without pairs');
  const groups = [...pairs.termGroups];
  // Planes cleared outside their field ranges need only those words swept (field slabs: every word, for simplicity).
  const planeWordRanges = env.fieldComm.size === 1 ? planeWordRangesOf(env.run.analysis.planes) : null;
  const isFinalizer = env.fieldComm.rank === 0;
  return {
    startGemm: (panel) => {
      const b = panel.block;
      return traced(`panel GEMM ${b.numRows} × ${b.numCols}`, () => env.gemm.run({
        a: b.rows.planes, aFirst: b.rowFirst, aCount: b.numRows,
        b: b.cols.planes, bFirst: b.colFirst, bCount: b.numCols,
        termGroups: groups, strictUpper: b.strictUpper, planeWordRanges,
      }));
    },
    finish: async (block, partial) => {
      const tallies = await reduceOverFields(env.fieldComm, partial);
      const matrix = env.run.matrix ?? null;
      let numPairs = pairsInPanel(block);
      if (isFinalizer) {
        numPairs = await traced('panel finalize', () => env.hostFinalizer.finalizePairs(block, tallies, matrix?.panelTarget(block)));
        matrix?.writeHostPanel(block);
      }
      // Nothing reads the panel's tallies any more (summed over field slabs, they went to other ranks too: kept).
      if (env.fieldComm.size === 1) env.gemm.recycle?.(partial);
      return numPairs;
    },
  };
}

/**
 * Device finalize, one panel ahead: the next panel's GEMM and finalize are queued on the device before this
 * panel's small results are applied. A panel the device declines (a value outside its range, more records than
 * one binding holds) is finalized on the host in host-sized panels, exactly as the CPU path would.
 */
async function runPairStepsOnDevice(env: PipelineEnv, own: VectorBlock, steps: readonly PairStep[], device: DevicePairFinalizer): Promise<PairStepsOutcome> {
  const host = hostPairFinalize(env);
  const matrix = env.run.matrix ?? null;
  // Records and dense values come back per panel: the host's panel size bounds their read-backs; a top-N run's
  // panels are smaller still, so that its records-only bar is known early.
  const barred = (env.run.topRecords ?? null) !== null;
  const pairsPerPanel = barred ? topPairsPerPanel(steps, fullRatePairsOf(env, own))
    : env.run.sink.writesRecords || matrix !== null ? PAIRS_PER_PANEL : DEVICE_PAIRS_PER_PANEL;
  const window = env.run.sink.window;
  let numPairs = 0;
  let numDevicePairs = 0;
  let numDeviceRecords = 0;
  let numWindowPairs = 0;
  const panels = barred ? withRampUp(pairPanels(env, own, steps, pairsPerPanel), rampHeadPairs(pairsPerPanel)) : pairPanels(env, own, steps, pairsPerPanel);
  await runOneAhead(panels, (panel) => {
    traceMark(`device panel ${panel.block.numRows} × ${panel.block.numCols}`);
    return device.start(panel.block);
  }, async (panel, result) => {
    const b = panel.block;
    if (result.kind === 'done') {
      if (matrix !== null) {
        if (result.denseValues === null) throw new Error('a dense-matrix panel finalized on the device without its values');
        matrix.writeDevicePanel(b, result.denseValues);
      }
      numDeviceRecords += result.records.count;
      device.apply(result, env.run.sink);
      numDevicePairs += pairsInPanel(b);
    } else {
      // The same rows and columns as the declined panel (without records it may be a large device panel), cut into
      // the host's panels.
      const region = {
        rowRange: { begin: b.rowFirst, end: b.rowFirst + b.numRows },
        colRange: { begin: b.colFirst, end: b.colFirst + b.numCols },
        strictUpper: b.strictUpper,
      };
      for (const block of pairPanelsOf(b.rows, b.cols, region, PAIRS_PER_PANEL)) {
        await host.finish(block, await host.startGemm({ block }));
      }
    }
    const done = pairsInPanel(b);
    numPairs += done;
    numWindowPairs += keptPairsInPanel(b, window);
    env.onWork(done * env.run.numField);
  }, { alone: (panel) => panel.rampHead === true });
  return { numPairs, numDevicePairs, numDeviceRecords, numWindowPairs };
}

/**
 * Pairs of a top-N run's device panels: about TOP_PANELS_PER_RANK of them per rank, within [TOP_MIN_PAIRS_PER_PANEL,
 * PAIRS_PER_PANEL], raised to `fullRatePairs`, the kernel set's fewest pairs at its rate (PopcountGemm.fullRatePairs;
 * at most DEVICE_PAIRS_PER_PANEL, the tallies' device memory). The records-only bar (topRecordsSink.ts recordBar) is
 * the N-th strongest record of the panels applied so far; small panels would keep it close to the run's, but a GPU
 * runs a small panel's GEMM at a fraction of its rate (2 Mi pairs, 64 tiles of the u8 kernel on a 132-SM H200: 8.1e13
 * u8 MAC/s against 2.1e14): the bar's sample comes from the ramp of small panels at the start (withRampUp) instead.
 * 2^16 pairs (a 256 × 256 tile) keep a panel's GEMM and finalize many workgroups wide.
 */
export function topPairsPerPanel(steps: readonly PairStep[], fullRatePairs = 0): number {
  const numPairs = steps.reduce((sum, step) => sum + pairsOfStep(step), 0);
  const byCount = Math.min(PAIRS_PER_PANEL, Math.max(TOP_MIN_PAIRS_PER_PANEL, Math.ceil(numPairs / TOP_PANELS_PER_RANK)));
  return Math.min(DEVICE_PAIRS_PER_PANEL, Math.max(byCount, fullRatePairs));
}

/** The kernel set's fewest pairs per request at its rate for this run's 2-way requests; 0 when it does not say. */
function fullRatePairsOf(env: PipelineEnv, own: VectorBlock): number {
  const pairs = env.run.analysis.pairs;
  if (pairs === null || env.gemm.fullRatePairs === undefined) return 0;
  return env.gemm.fullRatePairs({ termGroups: pairs.termGroups, numPlanes: own.planes.numPlanes, wordsPerPlane: own.planes.wordsPerPlane });
}

const TOP_PANELS_PER_RANK = 16;
const TOP_MIN_PAIRS_PER_PANEL = 1 << 16;
/**
 * Pairs of a top-N run's first panel, which runs alone and returns every passing entry: 4 Ki pairs (16 Ki records at
 * most) bar the panels after it from a sample large enough to leave few records above the bar.
 */
export const TOP_FIRST_PANEL_PAIRS = 1 << 12;
/**
 * Growth of the ramp's heads: each is 16 times the last, so the ramp adds little GPU time at low rate (its heads
 * sum to < 1/15 of the panel that follows), while the bar the next panels get comes from 16 times more pairs.
 */
const TOP_RAMP_GROWTH = 16;

/**
 * The heads a top-N run's first panel is cut into (withRampUp): TOP_FIRST_PANEL_PAIRS, then TOP_RAMP_GROWTH times
 * more each, while a head stays within 1/TOP_RAMP_GROWTH of the run's panels.
 */
export function rampHeadPairs(pairsPerPanel: number): number[] {
  const heads = [TOP_FIRST_PANEL_PAIRS];
  for (let head = TOP_FIRST_PANEL_PAIRS * TOP_RAMP_GROWTH; head * TOP_RAMP_GROWTH <= pairsPerPanel; head *= TOP_RAMP_GROWTH) heads.push(head);
  return heads;
}

/**
 * A panel cut into a head of its first rows (about `headPairs` pairs) and the rest, or the panel alone when it is that
 * small; together they hold the panel's pairs. A strictUpper panel starts its rows and columns at one vector, and so
 * does its rest: the columns left of the rest's first row hold no pair of it.
 */
export function splitPanelHead(b: PairBlock, headPairs: number): PairBlock[] {
  const headRows = Math.max(1, Math.floor(headPairs / Math.max(1, b.numCols)));
  if (headRows >= b.numRows) return [b];
  const head: PairBlock = { ...b, numRows: headRows };
  const colsSkipped = b.strictUpper ? headRows : 0;
  const rest: PairBlock = {
    ...b, rowFirst: b.rowFirst + headRows, numRows: b.numRows - headRows, colFirst: b.colFirst + colsSkipped, numCols: b.numCols - colsSkipped,
  };
  return rest.numCols > 0 ? [head, rest] : [head];
}

/** A panel cut into heads of about `headPairs[0]`, `headPairs[1]`, … pairs (splitPanelHead) and the rest, in that order. */
export function splitPanelRamp(b: PairBlock, headPairs: readonly number[]): PairBlock[] {
  const pieces: PairBlock[] = [];
  let rest: PairBlock | null = b;
  for (const pairs of headPairs) {
    if (rest === null) break;
    const split = splitPanelHead(rest, pairs);
    pieces.push(split[0]);
    rest = split.length > 1 ? split[1] : null;
  }
  if (rest !== null) pieces.push(rest);
  return pieces;
}

/**
 * A top-N run's panels: the first cut into a ramp of growing heads and its rest (splitPanelRamp), each head run alone
 * (the first sets the bar, each later one tightens it for the next), then the others one ahead.
 */
async function* withRampUp(panels: AsyncGenerator<PairPanel>, headPairs: readonly number[]): AsyncGenerator<PairPanel> {
  let first = true;
  for await (const panel of panels) {
    if (!first) {
      yield panel;
      continue;
    }
    first = false;
    const pieces = splitPanelRamp(panel.block, headPairs);
    // Heads as cut: the last piece is the panel's rest unless the heads took the whole panel.
    const numHeads = Math.min(headPairs.length, pieces.length);
    for (const [k, block] of pieces.entries()) yield { block, rampHead: k < numHeads };
  }
}
