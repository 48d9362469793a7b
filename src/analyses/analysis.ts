// The analysis interface: everything the engine needs to know about a metric, and nothing more.
//
// An analysis says which bit planes represent a vector, which popcount tallies of plane pairs (2-way) or plane
// triples (3-way) it needs, how the tallies of one pair or triple become its values (on the host and, where it
// has one, on the device), and which results it supports. The engine builds planes, runs the modified GEMMs over
// its decomposition, and hands the tallies back here; it never names an analysis. An analysis lives in one folder
// under src/analyses and is found by name (registry.ts) or by its module's URL (an analysis of one's own).
import type { Threshold } from '../core/thresholds.js';
import type { MetricSpec, NumWay } from '../core/types.js';
import type { RealPrecision } from '../core/realProblems.js';
import type { ChecksumAccumulator } from '../core/checksum.js';
import type { HistogramCounts, HistogramLayout } from '../core/histogramLayout.js';
import type { PairWindowLimits } from '../core/pairWindow.js';
import type {
  DenseValueKind, PairFinalizeResult, PairValueProgram, PlaneMatrix, PopcountGemm, PopcountGemm3Request, RecordBar, TermGroup, TripleFinalizeResult, TripleFinalizeValues,
} from '../mgemm/index.js';
import type { PairBandFinalize } from './windowBand.js';

/** The run facts an analysis is bound to: its metric settings and the problem's size. */
export interface AnalysisSettings {
  readonly spec: MetricSpec;
  readonly numVector: number;
  readonly numField: number;
}

/** Which bit planes represent a vector (built from SPEC §1's 2-bit codes), and what its per-vector sums count. */
export interface PlaneLayout {
  readonly numPlanes: number;
  /** Planes whose sum over a vector's fields is its sum (the `s` of SPEC §2; their popcounts are added). */
  readonly countPlanes: readonly number[];
  /** The presence plane (its popcount is the vector's count of present fields), or null: every field is present. */
  readonly maskPlane: number | null;
  /** Plane bits (bit p = plane p) of each 2-bit code 0–3. */
  readonly bitsOfCode: readonly number[];
  /**
   * Present for real-valued vectors (SPEC §8): the "planes" are the bits of values of this precision
   * (mgemm/minPlusContract.ts), built from the real-valued problems and files, and the kernels are min-plus ones;
   * `numWay` picks the analytic problem's value range (SPEC §8).
   */
  readonly realValues?: { readonly precision: RealPrecision; readonly numWay: 2 | 3 } | null;
  /**
   * Per plane, the global fields [first, end) where it may have bits (its bits elsewhere are cleared when blocks are
   * built), or null for all fields; absent: every plane covers every field. Case-control analyses order samples
   * [controls | cases], so a plane per class is a plane restricted to its class's field range.
   */
  readonly planeFieldRanges?: readonly (FieldRange | null)[] | null;
}

/** A half-open range of global field indices. */
export interface FieldRange { readonly first: number; readonly end: number }

/** A block of vectors as finalize sees it: its first global index, real vectors, planes and per-vector sums. */
export interface VectorBlockView {
  readonly blockIdx: number;
  readonly vectorFirst: number;
  readonly numVectorReal: number;
  readonly planes: PlaneMatrix;
  /** Σ of the count planes over all fields (reduced across field slabs). */
  readonly sums: Float64Array;
  /** Present fields over all fields (numField when the layout has no mask plane). */
  readonly counts: Float64Array;
}

/** A block of pairs: local rows [rowFirst, +numRows) of `rows` × local cols [colFirst, +numCols) of `cols`. */
export interface PairBlock {
  readonly rows: VectorBlockView;
  readonly rowFirst: number;
  readonly numRows: number;
  readonly cols: VectorBlockView;
  readonly colFirst: number;
  readonly numCols: number;
  /** Same block on both sides: only pairs with row < col are unique. */
  readonly strictUpper: boolean;
}

/** Tallies of the plan's pair-count groups between all local vectors of two blocks (rows × numCols each). */
export interface PairCounts {
  /** The first group's tallies (the only one of a plan with `pairCountGroup`). */
  readonly data: Uint32Array;
  readonly numCols: number;
  /** Every group's tallies, in the order of pairCountGroupsOf(plan) (`groups[0]` is `data`); absent: one group. */
  readonly groups?: readonly Uint32Array[];
}

/** The block-pair tallies a 3-way analysis asked for (pairCountGroupsOf its TriplePlan), between the three blocks. */
export interface BlockPairCounts {
  readonly ij: PairCounts;
  readonly ik: PairCounts;
  readonly jk: PairCounts;
  /** ij's transpose (j rows × i columns), when the device finalize asked for it; the same object as ij when i and j are one block. */
  readonly ji: PairCounts | null;
}

/** One j-slice of triples: local j of `jBlock`, rows i of `iBlock`, cols k of `kBlock`. */
export interface TripleSlice {
  readonly iBlock: VectorBlockView;
  readonly iFirst: number;
  readonly numI: number;
  readonly jBlock: VectorBlockView;
  readonly jLocal: number;
  readonly kBlock: VectorBlockView;
  readonly kFirst: number;
  readonly numK: number;
}

/** A half-open range of local vector indices. */
export interface Range { readonly first: number; readonly end: number }

/** Consecutive j-slices of one mGEMM3 call: i in the rank's own block, j in `jb`, k in `kb`. */
export interface TripleBatch {
  readonly jb: VectorBlockView;
  readonly kb: VectorBlockView;
  readonly slices: readonly { readonly jLocal: number; readonly iRange: Range; readonly kRange: Range }[];
  readonly pairCounts: BlockPairCounts | null;
}

/**
 * Where finalized values go: the threshold (SPEC §7), the exact checksum (SPEC §5) and the output records. Values
 * arrive a row at a time; an entry's table bits (a of i, b of j[, c of k]) place it in the checksum and the file.
 */
export interface ResultSink {
  readonly threshold: Threshold;
  readonly checksum: ChecksumAccumulator;
  readonly writesRecords: boolean;
  /** Pairs (i, j) for j = jFirst …: `values[4c + 2a + b]` is entry (a, b) of the c-th pair. */
  addPairRow(i: number, jFirst: number, numCols: number, values: Float64Array): void;
  /** One entry (a, b) of each pair (i, j) for j = jFirst …: `values[c]` (analyses with one entry per pair). */
  addPairEntryRow(i: number, a: number, jFirst: number, b: number, numCols: number, values: Float64Array): void;
  /** Triples (i, j, k) for k = kFirst …: `values[8t + 4a + 2b + c]`. */
  addTripleRow(i: number, j: number, kFirst: number, numK: number, values: Float64Array): void;
  /**
   * One value per tuple, no entry bits (SPEC §8): pairs (i, j) for j = jFirst … (`k` null) or triples (i, j, k) for
   * k = kFirst … (`j` given); every value counts in the checksum, the threshold only filters the records, whose
   * coordinates are the plain vector indices.
   */
  addTupleValueRow(tuple: TupleRow, values: Float64Array): void;
  /**
   * Pairs of an analysis whose value lies outside SPEC §5's checksum range (KING-robust kinship can be negative or
   * −inf): the checksum and the records take the pairs' exact tallies (`counts`), a dense matrix takes `values`.
   */
  addPairCountRow(row: PairCountRow): void;
  /** Records already thresholded and laid out as in the file (device finalize); they follow the records before. */
  addRecordWords(words: Uint32Array, numRecords: number): void;
  /** Histogram counts of values counted elsewhere (device finalize), in the run's histogram layout. */
  addHistogramCounts(counts: HistogramCounts): void;
}

/** A row of pairs (i, j) for j = jFirst … jFirst + numCols − 1 of addPairCountRow. */
export interface PairCountRow {
  readonly i: number;
  readonly jFirst: number;
  readonly numCols: number;
  /**
   * `counts[4c + 2a + b]`: entry (a of i, b of j) of the c-th pair, an exact tally scaled into [0, 16) (exact as float32
   * too); every pair's four go to the checksum, and those of the recorded pairs become records. Entry (a, b) of (i, j)
   * must mean entry (b, a) of (j, i), as the checksum and the records sort a pair's coordinates.
   */
  readonly counts: Float64Array;
  /** `values[c]`: the c-th pair's value, which a dense matrix holds. */
  readonly values: Float64Array;
  /** `recorded[c]` = 1: the c-th pair's four entries become records (the analysis applied the run's threshold to its value). */
  readonly recorded: Uint8Array;
}

/**
 * A row of tuples of addTupleValueRow: (i, first …) pairs when `j` is null, else (i, j, first …) triples, or with `k`
 * (i, j, k, first …) quadruples.
 */
export interface TupleRow {
  readonly i: number;
  readonly j: number | null;
  /** The third vector of quadruples (4-way); absent or null otherwise. */
  readonly k?: number | null;
  readonly first: number;
  readonly count: number;
}

/** Checks values against independently known ones (`--verify` on the analytic problem). */
export interface ValueVerifier {
  /** Values checked so far (a rank adds those its finalize workers checked). */
  numChecked: number;
  check2(i: number, a: 0 | 1, j: number, b: 0 | 1, value: number): void;
  check3(i: number, a: 0 | 1, j: number, b: 0 | 1, k: number, c: 0 | 1, value: number): void;
}

/** What a finalize call writes to: the run's sink and, with --verify, the verifier. */
export interface FinalizeContext {
  readonly sink: ResultSink;
  readonly verifier: ValueVerifier | null;
}

/** Whether a run may finalize on the device at all; the analysis adds its own conditions. */
export interface DeviceFinalizeOptions {
  readonly writesRecords: boolean;
  /** A dense-matrix run: every pair's value comes back too, as float32 or float64, in panel order (mgemm/pairFinalize.ts). */
  readonly denseValues?: DenseValueKind | null;
  /** Count every value (before the threshold) in this layout on the device too; absent or null: no histogram. */
  readonly histogram?: HistogramLayout | null;
  /** An LD window (2-way): pairs outside it count nowhere, on the device too; absent or null: every pair. */
  readonly window?: PairWindowLimits | null;
  /**
   * A top-N run's records-only bar, asked for as each request starts (it tightens as the run's strongest records are
   * known): records weaker than it are not returned (mgemm/pairFinalize.ts RecordBar); absent or null: every record.
   */
  readonly recordBar?: RecordBarSource | null;
}

/** The current records-only bar of a run (null while none is known). */
export type RecordBarSource = () => RecordBar | null;

/** 2-way finalize on the device: one request per panel, its small results applied in panel order. */
export interface DevicePairFinalizer {
  /** The value program the kernel set runs (compiled before the input loads). */
  readonly program: PairValueProgram;
  start(block: PairBlock): Promise<PairFinalizeResult>;
  /** Adds a panel's results to the sink and releases them. */
  apply(result: Extract<PairFinalizeResult, { kind: 'done' }>, sink: ResultSink): void;
}

/** 3-way finalize on the device: one request per batch of j-slices. */
export interface DeviceTripleFinalizer {
  /** Which of the kernel set's 3-way finalize programs it runs (SPEC §3's formulas with or without a presence plane, or a value program). */
  readonly values: TripleFinalizeValues;
  start(own: VectorBlockView, batch: TripleBatch, gemm: PopcountGemm3Request): Promise<TripleFinalizeResult>;
  /** Adds a batch's results to the sink. */
  apply(result: Extract<TripleFinalizeResult, { kind: 'done' }>, sink: ResultSink): void;
}

/** The 2-way part of an analysis bound to a run. */
export interface PairAnalysis extends PairBandFinalize {
  /** Term groups of each pair's tallies; finalize gets one numRows × numCols tally matrix per group. */
  readonly termGroups: readonly TermGroup[];
  /** Values of every unique pair of the block into `ctx.sink`; returns the number of pairs. */
  finalize(ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number;
  /** A device finalizer when the kernel set offers one this analysis can use with the run's threshold, else null. */
  deviceFinalizer?(gemm: PopcountGemm, threshold: Threshold, options: DeviceFinalizeOptions): DevicePairFinalizer | null;
}

/** Tallies of 3-way: mGEMM3's operands and groups, and the 2-way tallies between blocks some analyses need too. */
export interface TriplePlan {
  /** A operand of mGEMM3: plane pairs (p of i) AND (q of j). */
  readonly planePairs: readonly (readonly [number, number])[];
  /** Term groups over (pair index, k plane). */
  readonly termGroups: readonly TermGroup[];
  /** A 2-way term group whose tallies between the three blocks finalize needs (BlockPairCounts), or null. */
  readonly pairCountGroup: TermGroup | null;
  /**
   * Several such 2-way groups instead (PairCounts.groups, in this order; `pairCountGroup` is then null), e.g. dense
   * epistasis's genotype pair counts per class; absent or null: `pairCountGroup` alone.
   */
  readonly pairCountGroups?: readonly TermGroup[] | null;
}

/** The 2-way term groups whose block-pair tallies a 3-way plan's finalize needs (empty: none). */
export function pairCountGroupsOf(plan: TriplePlan): readonly TermGroup[] {
  return plan.pairCountGroups ?? (plan.pairCountGroup === null ? [] : [plan.pairCountGroup]);
}

/** The 3-way part of an analysis bound to a run. */
export interface TripleAnalysis {
  readonly plan: TriplePlan;
  /** Values of the slice's triples into `ctx.sink` (tallies[g]: numI × numK); returns the number of triples. */
  finalize(ctx: FinalizeContext, slice: TripleSlice, tallies: readonly Uint32Array[], pairCounts: BlockPairCounts | null): number;
  deviceFinalizer?(gemm: PopcountGemm, threshold: Threshold, options: DeviceFinalizeOptions): DeviceTripleFinalizer | null;
}

/**
 * Tallies of 4-way (mGEMM4): a popcount GEMM of pair planes — per row pair (i, j) the planes (p of i) AND (q of j),
 * per column pair (k, l) likewise — so each output is Σ popc(x_i ∧ y_j ∧ z_k ∧ w_l); optionally a second GEMM of the
 * row pairs against single vectors (3-way tallies (i, j, v)) for the cells the pair × pair GEMM leaves out.
 */
export interface QuadTallyPlan {
  /** Planes of each row pair (i, j): (p of i) AND (q of j). */
  readonly rowPlanePairs: readonly (readonly [number, number])[];
  /** Planes of each column pair (k, l): (p of k) AND (q of l). */
  readonly colPlanePairs: readonly (readonly [number, number])[];
  /** Term groups over (row pair plane, column pair plane). */
  readonly termGroups: readonly TermGroup[];
  /** Term groups over (row pair plane, vector plane) against the vectors of the tile's columns, or null: none. */
  readonly vectorTermGroups: readonly TermGroup[] | null;
}

/**
 * One tile of quadruples: row pairs (rowI[r], rowJ[r]) × column pairs (colK[c], colL[c]); only cells with
 * rowJ[r] < colK[c] are unique quadruples i < j < k < l (the others are computed and skipped). Columns come in
 * k-major order, so a run of columns with one k has consecutive l.
 */
export interface QuadTileView {
  /** Every vector (a 4-way rank holds them all): global index = local index. */
  readonly vectors: VectorBlockView;
  readonly rowI: Int32Array;
  readonly rowJ: Int32Array;
  readonly colK: Int32Array;
  readonly colL: Int32Array;
  /** First vector of the vector tallies' columns (vector tallies: numRows × numVectorCols). */
  readonly vectorFirst: number;
  readonly numVectorCols: number;
}

/** The 4-way part of an analysis bound to a run. */
export interface QuadAnalysis {
  readonly plan: QuadTallyPlan;
  /**
   * Values of the tile's unique quadruples into `ctx.sink` (`addTupleValueRow` with `k`): `tallies[g]` numRows ×
   * numCols, `vectorTallies[g]` numRows × numVectorCols (null when the plan has none); returns the number of quadruples.
   */
  finalize(ctx: FinalizeContext, tile: QuadTileView, tallies: readonly Uint32Array[], vectorTallies: readonly Uint32Array[] | null): number;
  /** A device finalizer when the kernel set offers one this analysis can use with the run's threshold, else null. */
  deviceFinalizer?(gemm: PopcountGemm, threshold: Threshold, options: DeviceFinalizeOptions): DeviceQuadFinalizer | null;
}

/**
 * One 4-way device request: row pairs [rowPairFirst, + rows.numVectors) (j-major) × column pairs colPairFirst +
 * [colFirst, colFirst + numCols) of `cols` (k-major), both as pair planes of the finalizer's plan (mgemm4.ts).
 */
export interface QuadDeviceRequest {
  readonly rows: PlaneMatrix;
  readonly rowPairFirst: number;
  readonly cols: PlaneMatrix;
  /** Global column pair index of `cols`' row 0. */
  readonly colPairFirst: number;
  readonly colFirst: number;
  readonly numCols: number;
  /**
   * The quad plan's tile shape (pairs): records are added tile by tile in plan order (row tiles outer), row-major
   * within a tile, as the host finalizes them, so that a rank's file is the CPU run's whatever the request's size.
   */
  readonly tileRows: number;
  readonly tileCols: number;
}

/** 4-way finalize on the device: one request per rectangle of pairs, its small results applied in order. */
export interface DeviceQuadFinalizer {
  /** The pair planes and term groups its requests compute (its own: it may differ from the host's plan). */
  readonly plan: QuadTallyPlan;
  /** Pairs (rows × columns) of a request at the kernel set's full rate (PopcountGemm.fullRatePairs), or 0: unknown. */
  readonly fullRatePairs: (wordsPerPlane: number) => number;
  start(request: QuadDeviceRequest): Promise<PairFinalizeResult>;
  /** Adds a request's results to the sink (its records as (i, j, k, l) in the host's order) and releases them. */
  apply(result: Extract<PairFinalizeResult, { kind: 'done' }>, request: QuadDeviceRequest, sink: ResultSink): void;
}

/**
 * The results an analysis can be reduced to, as the sinks of a run: records of the entries above a threshold (SPEC §7),
 * a dense matrix of every pair's value (analyses with one value per pair; `Analysis.denseMatrix` says how),
 * histograms of all values (SPEC §9; the run's layout from AnalysisRun.histogramLayout), or the records of the N
 * strongest values of the run, exactly (`run --top N`; `Analysis.strongerValues` says which values are stronger).
 */
export type ResultKind = 'threshold-records' | 'dense-matrix' | 'histogram' | 'top-n';

/** Which values of an analysis are the stronger ones for its top-N: larger (CCC, DUO, r²) or smaller (a p-value, K2). */
export type StrongerValues = 'larger' | 'smaller';

/**
 * What a dense matrix of an analysis's one value per pair needs besides the values (PLINK's matrix files: 1.9's
 * `--r2 square|square0|triangle [bin|bin4]`, plink2's `--make-king`, `--make-rel`).
 */
export interface DenseMatrixSpec {
  /** File name extension after the output stub: `ld` gives `<stub>.ld` (text) and `<stub>.ld.bin` (bin, bin4). */
  readonly extension: string;
  /** The value of a vector against itself, on the diagonal (r²: 1). */
  readonly diagonal: number;
  /** Whether triangle form holds the diagonal (PLINK 1.9's --r2 triangle does; plink2's --make-king triangle does not). */
  readonly diagonalInTriangle: boolean;
}

/** An analysis bound to one run's settings (planes, tallies, constants are fixed for the run). */
export interface AnalysisRun {
  readonly planes: PlaneLayout;
  /** Present when the run is 2-way. */
  readonly pairs: PairAnalysis | null;
  /** Present when the run is 3-way. */
  readonly triples: TripleAnalysis | null;
  /** Present when the run is 4-way (analyses whose `ways` include 4). */
  readonly quads?: QuadAnalysis | null;
  /** A verifier of the analytic problem's values, or null when the analysis knows none. */
  analyticVerifier(): ValueVerifier | null;
  /**
   * The histogram of the run's values (analyses whose `results` include 'histogram'): buckets, columns and which
   * entries count where. Throws a one-line UserError when the run's settings give none.
   */
  histogramLayout?(): HistogramLayout;
}

/** A metric: what the engine runs for `--metric <name>`. */
export interface Analysis {
  readonly name: string;
  /** One line for help texts. */
  readonly summary: string;
  readonly ways: readonly NumWay[];
  readonly results: readonly ResultKind[];
  /** How its dense matrix is written; present when `results` lists 'dense-matrix'. */
  readonly denseMatrix?: DenseMatrixSpec;
  /** Which values rank first in its top-N; present when `results` lists 'top-n'. */
  readonly strongerValues?: StrongerValues;
  /** Refuses settings the analysis cannot run (tallies that would overflow, a way it lacks) with a one-line UserError. */
  check(settings: AnalysisSettings): void;
  /** The analysis for one run (called once per rank, and once per finalize worker). */
  forRun(settings: AnalysisSettings): AnalysisRun;
}
