// The contract of 3-way finalize on the device: a kernel set that offers `finalizeTriples` computes one mGEMM3
// call (run3-shaped: several j-slices, pair products built by the kernel set) and turns its tallies, where they
// lie, into each triple's values — the eight SPEC §3 values, or one value from the caller's TripleValueProgram —,
// the threshold, the exact checksum partial sum and the passing records; only those small results come back. The
// engine decides what is precomputed (per-vector factors, 2-way pair counts, run tables); the kernel set only combines them.
import type { PopcountGemm3Request } from './contract.js';
import { formulaConstantsOnDevice, type RecordBar } from './pairFinalize.js';
import type { HistogramCounts, HistogramLayout } from '../core/histogramLayout.js';

/** u32 words per vector in a formula request's `xVectors` / `yVectors` / `zVectors`. */
export const TRIPLE_VECTOR_WORDS = 10;

/**
 * Per-vector words, TRIPLE_VECTOR_WORDS per vector: `[s1, count, f0.lo, f0.hi, f1.lo, f1.hi, g0.lo, g0.hi, g1.lo, g1.hi]`.
 * s1 = Σ c1 over all fields, count = present fields (nf when dense); f_a = rc·s_a (s0 = C·count − s1; dense
 * rc = (1/C)·(1/m), sparse rc = (1/C)·(1/count)) and g_a = 1 − p·f_a as IEEE double bits, computed by the
 * engine with core/formulas' operations. The f's order the factors (combine3 sorts by f); a vector with
 * count 0 (sparse) has f = g = 0, unused because its triples' values are 0.
 */
export type TripleVectorWords = Uint32Array;

/** The run's SPEC §3 constants (doubles as JavaScript numbers). */
export interface TripleFormula {
  readonly sparse: boolean;
  /** C: 2 for CCC, 1 for DUO. */
  readonly countedBits: 1 | 2;
  readonly multiplier: number;
  /** p: enters the per-vector words' g = 1 − p·f, which the engine computes. */
  readonly param: number;
  /** m = nf: the dense T[mmm]. */
  readonly numField: number;
  /** Dense rsum = (1/C³)·(1/m), computed by the caller as its CPU formulas do (unused when sparse). */
  readonly denseRsum: number;
}

/**
 * A float32 threshold `t ≥ 0` as the bits of the largest float32 ≤ t: a float32 v passes `v > t` iff v is not
 * negative and its bits exceed these (non-negative float32s order like their bits).
 */
export type Float32ThresholdBits = number;

/** The threshold of core/thresholds.ts `markPassingEntries` for triples, as float32 bits. */
export type TripleThresholdBits =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly above: Float32ThresholdBits }
  | {
      readonly kind: 'multi3'; readonly lll: Float32ThresholdBits; readonly llh: Float32ThresholdBits;
      readonly lhh: Float32ThresholdBits; readonly hhh: Float32ThresholdBits; readonly lllhhh: Float32ThresholdBits;
    };

/** Σ c_x c_y of all local pairs of two blocks, row-major: `data[row · numCols + col]`. */
export interface PairCountMatrix {
  readonly data: Uint32Array;
  readonly numCols: number;
}

/**
 * Dense 3-way tallies besides T[ccc], as whole block-pair matrices of the request's x, y and z: T[ccm] = Σ c_i c_j
 * (y × x: a slice's T[ccm] is row yRow), T[mcc] = Σ c_j c_k (y × z) and T[cmc] = Σ c_i c_k (x × z). The engine never
 * changes them after their first use, so a kernel set may keep them on the device (the same objects for every batch of a unit).
 */
export interface DenseTriplePairCounts {
  readonly yx: PairCountMatrix;
  readonly yz: PairCountMatrix;
  readonly xz: PairCountMatrix;
}

/**
 * A value program's block-pair counts (TripleValueProgram.pairCountGroups): `numGroups` 2-way tallies per pair, each
 * matrix of DenseTriplePairCounts holding its groups one after another (group g at g · rows · numCols). `yx` holds the
 * tallies of (y row, x column): a group's first plane is j's. The same objects for every batch of a unit.
 */
export interface GroupedTriplePairCounts extends DenseTriplePairCounts {
  readonly numGroups: number;
}

/** What every 3-way finalize request holds, whatever computes its values. */
interface TripleFinalizeCommon {
  /** The run3 request (several j-slices; the kernel set builds the pair products (x_i AND y_j) itself). */
  readonly gemm: PopcountGemm3Request;
  /** Per-vector words of x's, y's and z's rows (row 0 first; at least the rows the slices use): TRIPLE_VECTOR_WORDS or the program's vectorWords each. */
  readonly xVectors: Uint32Array;
  readonly yVectors: Uint32Array;
  readonly zVectors: Uint32Array;
  /** Global vector indices of row 0 of x, y and z (coordinates, checksum uids). */
  readonly xVectorFirst: number;
  readonly yVectorFirst: number;
  readonly zVectorFirst: number;
  /** nv of the run (checksum uids). */
  readonly numVector: number;
  readonly threshold: TripleThresholdBits;
  /** Return the passing entries' records. */
  readonly records: boolean;
  /** A top-N run's records-only bar (pairFinalize.ts RecordBar); absent or null: every passing entry's record. */
  readonly recordBar?: RecordBar | null;
}

/**
 * One mGEMM3 call finalized where its tallies lie with SPEC §3's formulas: per triple the eight values, the
 * threshold, the checksum and the records. Triple (r, c) of slice s is (i, j, k) = (x row xFirst + r, y row yRow,
 * z row zFirst + c); term group g computes T[products[g]] (index 4u + 2v + w, 1 = count c, 0 = mask m).
 */
export interface FormulaTripleFinalizeRequest extends TripleFinalizeCommon {
  readonly products: readonly number[];
  readonly formula: TripleFormula;
  /** Dense runs only (null when sparse). */
  readonly pairCounts: DenseTriplePairCounts | null;
  /** Count every value (before the threshold) in this layout (entry bits 4a + 2b + c); absent or null: none. */
  readonly histogram?: HistogramLayout | null;
}

/**
 * The per-triple value computation of an analysis, as WGSL the kernel set compiles into its 3-way finalize program
 * (the 3-way analogue of pairFinalize.ts PairValueProgram). `wgsl` holds module-scope declarations that define
 *
 *     fn tripleValue(t: u32, rq: u32, cq: u32, gi: u32, gj: u32, gk: u32) -> vec2<u32>
 *
 * returning the value of triple (row rq, column cq) of the slice at hand — global vectors gi (x row), gj (y row), gk
 * (z row) — as a soft double (IEEE bits (lo, hi), the kernel set's soft-double library). It reads the triple's
 * tallies at `tallies[g * u.groupWords + t]` (term group g of the request's gemm), per-vector words through
 * `rowWord(rq, w)`, `jWord(w)`, `colWord(cq, w)` (w < vectorWords), the run's words (a table) at `runWords[n]` and the
 * run's constants as `u.<name>`. The value must be +0 or a normal non-negative double below 16 (the checksum's range;
 * anything else makes the kernel set decline the request). Values are named by triples, as ResultSink.addTupleValueRow
 * names them: every triple counts in the checksum with uid (hi·nv + mid)·nv + lo of its sorted coordinates, a single
 * threshold chooses the records, which hold the plain coordinates (i, j, k) and the float32 value.
 */
export interface TripleValueProgram {
  /** Identifies `wgsl` and the fields below: two programs with the same key are the same program. */
  readonly cacheKey: string;
  readonly wgsl: string;
  /** u32 words per vector in the request's xVectors / yVectors / zVectors (0: none). */
  readonly vectorWords: number;
  /** Names of the run's u32 constants that tripleValue reads as `u.<name>` (values: the request's `constants`). */
  readonly constantNames: readonly string[];
  /**
   * 2-way tallies per block pair the program reads (the request's `pairCounts`, GroupedTriplePairCounts), through
   * `pairCountIJ(g, rq)` (group g of (j, i row rq): yx), `pairCountJK(g, cq)` (of (j, k column cq)) and
   * `pairCountIK(g, rq, cq)`; absent or 0: none.
   */
  readonly pairCountGroups?: number;
}

/** One mGEMM3 call finalized where its tallies lie by an analysis's value program: one value per triple. */
export interface ProgramTripleFinalizeRequest extends TripleFinalizeCommon {
  readonly values: TripleValueProgram;
  /** u32 values of `values.constantNames`, in that order. */
  readonly constants: readonly number[];
  /** Words of the whole run the program reads (`runWords`; the same array for every request: kept on the device). */
  readonly runWords: Uint32Array;
  /** The program's block-pair counts (values.pairCountGroups groups); absent or null when it reads none. */
  readonly pairCounts?: GroupedTriplePairCounts | null;
}

/** A 3-way device finalize request: SPEC §3's formulas, or an analysis's value program. */
export type TripleFinalizeRequest = FormulaTripleFinalizeRequest | ProgramTripleFinalizeRequest;

/** Which values a 3-way finalize program computes: SPEC §3's formulas (dense or sparse) or a value program's. */
export type TripleFinalizeValues =
  | { readonly kind: 'formula'; readonly sparse: boolean }
  | { readonly kind: 'program'; readonly program: TripleValueProgram };

/** The values of a request. */
export function tripleFinalizeValuesOf(request: TripleFinalizeRequest): TripleFinalizeValues {
  return isProgramTripleRequest(request) ? { kind: 'program', program: request.values } : { kind: 'formula', sparse: request.formula.sparse };
}

/** Whether a request's values come from a value program (one per triple) rather than SPEC §3's formulas. */
export function isProgramTripleRequest(request: TripleFinalizeRequest): request is ProgramTripleFinalizeRequest {
  return 'values' in request;
}

/**
 * The request's block-pair counts and their groups: a dense formula's (one group), a value program's (its
 * pairCountGroups), or null; throws when a program's request lacks the groups its program reads.
 */
export function triplePairCountsOf(request: TripleFinalizeRequest): { readonly counts: DenseTriplePairCounts; readonly numGroups: number } | null {
  if (!isProgramTripleRequest(request)) return request.pairCounts === null ? null : { counts: request.pairCounts, numGroups: 1 };
  const numGroups = request.values.pairCountGroups ?? 0;
  const counts = request.pairCounts ?? null;
  if ((counts?.numGroups ?? 0) !== numGroups) {
    throw new Error(`${request.values.cacheKey}: the program reads ${numGroups} pair-count groups, the request has ${counts?.numGroups ?? 0}`);
  }
  return counts === null || numGroups === 0 ? null : { counts, numGroups };
}

/** Per-vector words of a request's rows. */
export function tripleVectorWordsOf(request: TripleFinalizeRequest): number {
  return isProgramTripleRequest(request) ? request.values.vectorWords : TRIPLE_VECTOR_WORDS;
}

/**
 * Passing records of the whole request as the output lays them out (SPEC §7), in the CPU path's order (slice by
 * slice, row-major within one, entries 4a + 2b + c ascending): `words[4n]` = 2·i + a, `words[4n + 1]` = 2·j + b,
 * `words[4n + 2]` = 2·k + c, `words[4n + 3]` = float32 bits of the value, where for slice s, its row r and column
 * col: i = xVectorFirst + xFirst + r, j = yVectorFirst + yRow, k = zVectorFirst + zFirst + col. (On the device
 * they are keyed `(tripleFirst(s) + r · zCount + col) · 8 + 4a + 2b + c` — tripleFirst(s) = Σ xCount · zCount of the
 * slices before s — and put in that order by key.) A value program's records are (i, j, k, value bits), keyed
 * with entry bits 0.
 */
export interface TripleRecords {
  readonly count: number;
  readonly words: Uint32Array;
}

export type TripleFinalizeResult =
  | {
      readonly kind: 'done';
      /** Σ rv·iv over the passing entries of all slices (SPEC §5), exact. */
      readonly checksumSum: bigint;
      readonly entries: number;
      readonly zeros: number;
      readonly records: TripleRecords;
      /** The request's histogram counts (when it asked for them), else null. */
      readonly histogram: HistogramCounts | null;
    }
  /**
   * A passing value left the checksum's [0, 16), records did not fit, or keys would exceed 32 bits: finalize
   * the whole call on the host.
   */
  | { readonly kind: 'needsHost'; readonly reason: string };

/** Checksum uids + the weight's offsets (< 2^30) must stay below 2^52 (randomize's exact range, core/randomize.ts). */
const MAX_UID = 2 ** 52 - 2 ** 30;

/** Whether checksum uids of one value per triple, (hi·nv + mid)·nv + lo, stay in the device's exact range. */
export function tripleValueUidsOnDevice(numVector: number): boolean {
  return numVector ** 3 < MAX_UID;
}

/**
 * Whether device finalize computes this run's triples exactly (the constants as for pairs, pairFinalize.ts, and
 * uids ((c0·nv + c1)·nv + c2)·8 + 7 < nv³·8 within randomize's range); otherwise the engine finalizes on the host.
 */
export function tripleFormulaOnDevice(formula: TripleFormula, numVector: number): boolean {
  return formulaConstantsOnDevice(formula) && numVector ** 3 * 8 < MAX_UID;
}

/** Record keys are u32: a request's triples (all slices) × 8 entries must stay within 2^32. */
export function tripleRecordKeysFit(numTriples: number): boolean {
  return numTriples * 8 <= 2 ** 32;
}
