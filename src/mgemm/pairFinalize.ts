// The contract of 2-way finalize on the device: a kernel set that offers `finalizePairs` computes a request's
// tallies and turns them, where they lie, into each pair's values, the threshold, the exact checksum partial sum
// and the passing records; only those small results come back. The kernel set owns that scaffolding; what a pair's
// values are comes from the caller as a small program (PairValueProgram), so the kernel set knows no analysis.
import type { PopcountGemmRequest } from './contract.js';
import type { HistogramCounts, HistogramLayout } from '../core/histogramLayout.js';

/**
 * The per-pair value computation of a device finalize, as WGSL the kernel set compiles into its finalize program.
 * `wgsl` holds module-scope declarations that define
 *
 *     fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, N>      (N = entryBits.length)
 *
 * returning the values of the pair of global vectors gi (row) and gj (column), in the order of `entryBits`, as soft doubles (IEEE bits (lo, hi), the kernel set's
 * soft-double library: sdMul, sdDiv, sdFromU64, u64MulU32, ..., and ONE). It reads the pair's tallies at
 * `tallies[g * u.groupWords + t]` (group g of the request's term groups), the pair's per-vector words at
 * `rowVec[vi + w]` and `colVec[vj + w]` (w < vectorWords), and the run's constants as `u.<name>`. A value must be
 * +0 or a normal non-negative double below 16 (the checksum's range; anything else makes the kernel set decline
 * the request), or PAIR_VALUE_UNDEFINED_WGSL: an undefined value (JavaScript's NaN), which passes no threshold,
 * counts as an entry but not as a zero when kept, adds nothing to the checksum, and is written as the float32
 * quiet NaN (what a Float32Array store of NaN writes).
 */
export interface PairValueProgram {
  /** Identifies `wgsl` and the fields below: two programs with the same key are the same program. */
  readonly cacheKey: string;
  readonly wgsl: string;
  /** Statements run once per thread before its pairs (e.g. splitting run constants into factors), or ''. */
  readonly setup: string;
  /**
   * Table entries of a pair that pairValues returns, as entry bits 2a + b (a of the row vector, b of the column's),
   * ascending: [0, 1, 2, 3] for a whole 2 × 2 table, [3] for one entry (1, 1).
   */
  readonly entryBits: readonly number[];
  /**
   * u32 words per vector in `PairFinalizeRequest.rowVectors` / `colVectors`. The caller may put words of the whole run
   * (a table) before row 0's, which pairValues reads at offsets of its own (a run constant added to `vi`, `vj`); the
   * kernel set reads no per-vector word itself but an LD window's, so such a program takes no window.
   */
  readonly vectorWords: number;
  /** Names of the run's u32 constants that pairValues reads as `u.<name>` (values: `PairFinalizeRequest.constants`). */
  readonly constantNames: readonly string[];
  /** How the checksum and records name the values (PairValueNaming); absent: 'tableEntries'. */
  readonly naming?: PairValueNaming;
  /**
   * True for a pair-count program (the device form of ResultSink.addPairCountRow, KING's): pairValues returns exact
   * counts, each of which goes to the checksum whether its pair is recorded or not, and `wgsl` also defines
   *
   *     fn pairCountValue(vi: u32, vj: u32, t: u32) -> vec2<u32>
   *
   * the pair's own value as IEEE double bits — any double: negative, −inf, NaN —, which the request's `pairValue`
   * threshold compares in double (the pair's entries are all records when the value is not ≤ it: NaN is recorded) and
   * which dense values hold. Such a request has no histogram, LD window or record bar. Absent or false: the values
   * themselves are thresholded, entry by entry.
   */
  readonly pairCounts?: boolean;
}

/**
 * How a program's values are named in the checksum and the records. 'tableEntries': entry (a, b) of the pair's table,
 * uid (c0·nv + c1)·4 + 2a + b and records (2i + a, 2j + b) (SPEC §5, §7). 'pairs': one value per pair (entryBits [0])
 * named by the pair alone, as ResultSink.addTupleValueRow names it: uid c0·nv + c1 (core/checksum.ts
 * tupleValuePairWeights) and records (i, j); the checksum then counts every pair, the threshold chooses records only.
 */
export type PairValueNaming = 'tableEntries' | 'pairs' | 'quads';

/*
 * 'quads' (mGEMM4: the request's matrices are pair planes, mgemm4.ts): global row index gi = rowVectorFirst + row is a
 * row pair (i, j) in j-major order (index j(j−1)/2 + i), global column index gj a column pair (k, l) in k-major order
 * over the run's nv vectors (parallel/quadPlan.ts); pairValues gets gi and gj as these pair indices. Only cells with
 * j < k are quadruples (i < j < k < l): the others are skipped — no value, checksum, entry or record. One value per
 * quadruple (entryBits [0]), every one in the checksum with uid ((l·nv + k)·nv + j)·nv + i (ResultSink.addTupleValueRow
 * with k), the threshold choosing records; a record holds the pair indices (gi, gj) and the value bits — the caller
 * turns them into (i, j, k, l) (few records: no WGSL for a fourth and fifth word). Needs quadNamingOnDevice.
 */

/** Whether a run of `numVector` vectors can name its values 'quads' on the device (pair decoding and uids mod 714025). */
export function quadNamingOnDevice(numVector: number): boolean {
  return numVector >= 4 && numVector <= MAX_QUAD_NAMING_VECTORS;
}

/** nv < 714025 (randomize's modulus, so nv mod it is nv) and pair indices, f32 square roots of 8·index + 1, far within u32. */
const MAX_QUAD_NAMING_VECTORS = 9000;

/** WGSL of the undefined value (NaN) a PairValueProgram may return. */
export const PAIR_VALUE_UNDEFINED_WGSL = 'vec2<u32>(0u, 0x7ff80000u)';

/** Whether a program's values fill a whole 2 × 2 table (entries 00, 01, 10, 11): per-entry thresholds need them. */
export function valuesFillTable(program: PairValueProgram): boolean {
  return program.entryBits.length === 4 && program.entryBits.every((bits, k) => bits === k);
}

/**
 * Threshold as float32 bit patterns: an entry's value v passes `single` iff fround(v) > t, which for
 * t ≥ 0 is: fround(v) is not negative and its bits exceed `above` = the bits of the largest float32 ≤ t.
 * `multi2` needs values that fill the table (valuesFillTable).
 */
export type PairThresholdBits =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly above: number }
  | { readonly kind: 'multi2'; readonly ll: number; readonly lh: number; readonly hh: number; readonly llhh: number }
  /** A pair-count program's threshold (PairValueProgram.pairCounts): pairCountValue not ≤ the double of IEEE words (lo, hi). */
  | { readonly kind: 'pairValue'; readonly lo: number; readonly hi: number };

export interface PairFinalizeRequest {
  /** Tallies to compute: the term groups `values` reads. */
  readonly gemm: PopcountGemmRequest;
  readonly values: PairValueProgram;
  /** u32 values of `values.constantNames`, in that order. */
  readonly constants: readonly number[];
  /**
   * Per-vector words of `gemm.a`'s rows and `gemm.b`'s rows, `values.vectorWords` per row of the plane matrix (the
   * same array for the same matrix: kept on the device).
   */
  readonly rowVectors: Uint32Array;
  readonly colVectors: Uint32Array;
  /** Global vector index of row 0 of `gemm.a` / `gemm.b` (coordinates and checksum uids). */
  readonly rowVectorFirst: number;
  readonly colVectorFirst: number;
  /** nv of the run (checksum uids). */
  readonly numVector: number;
  readonly threshold: PairThresholdBits;
  /** Return the passing entries' records. */
  readonly records: boolean;
  /**
   * Also return every pair's value (programs with one entry per pair), whatever the threshold: DenseValues. Null or
   * absent: none.
   */
  readonly denseValues?: DenseValueKind | null;
  /** Count every value (before the threshold) in this layout and return the counts; absent or null: no histogram. */
  readonly histogram?: HistogramLayout | null;
  /**
   * An LD window: only pairs in it count at all (values, threshold, checksum, records, histogram). Then `rowVectors` and
   * `colVectors` hold, after each row's `values.vectorWords` words, 2 window words (PAIR_WINDOW_WORDS). Absent or
   * false: every pair.
   */
  readonly windowed?: boolean;
  /**
   * A records-only bar (a top-N run): of the passing entries, only those whose float32 value is at least as strong as
   * the bar come back as records; the threshold, checksum, entries, histogram and dense values ignore it. Absent or
   * null: every passing entry.
   */
  readonly recordBar?: RecordBar | null;
}

/**
 * The weakest value a record may have and still come back (inclusive: a record equal to the bar may still enter a
 * top N through a smaller index). `atLeast`: larger values are stronger, `atMost`: smaller ones. `valueBits` are the
 * float32 bits of a non-negative, finite value — what the records hold — so the device compares bits, not doubles.
 * An undefined value (NaN) never passes a bar.
 */
export interface RecordBar {
  readonly keep: 'atLeast' | 'atMost';
  readonly valueBits: number;
}

/**
 * Words per row that an LD window adds to a request's per-vector words, for the vector v of that row:
 * [bandEnd, otherChromosomeFirst], global vector indices. A pair of global vectors lo < hi is in the window iff
 * hi < bandEnd(lo) or hi ≥ otherChromosomeFirst(lo) (NO_OTHER_CHROMOSOME: never). A per-row column limit rather than
 * each vector's chromosome and position: one comparison per pair, no position arithmetic in WGSL, the same words for
 * --ld-window's count, --ld-window-kb's distance and inter-chr (the host computes them once); and beside the
 * per-vector words rather than in buffers of their own, as the finalize program already binds 8 storage buffers with
 * a histogram, WebGPU's default limit per stage.
 */
export const PAIR_WINDOW_WORDS = 2;

/** The window word of a vector whose window has no other-chromosome part. */
export const NO_OTHER_CHROMOSOME = 0xffffffff;

/** How a request returns every pair's value: float32 bits, or IEEE doubles as (low, high) words. */
export type DenseValueKind = 'float32' | 'float64';

/**
 * Every pair's value of a request at its place p = row · bCount + col (row-major over gemm.aCount × gemm.bCount):
 * `words[p]` (float32) or `words[2p]`, `words[2p + 1]` (float64, low word first); an undefined value is a NaN. Places
 * of no pair (left of a strictUpper request's diagonal) hold anything.
 */
export interface DenseValues {
  readonly kind: DenseValueKind;
  readonly words: Uint32Array;
}

/**
 * Passing records as the output lays them out (SPEC §7), in the CPU path's order (row by row, columns and entries
 * ascending): `words[3k]` = 2·i + a, `words[3k + 1]` = 2·j + b, `words[3k + 2]` = float32 bits of the value, where
 * i = rowVectorFirst + row and j = colVectorFirst + col; i and j for a program whose naming is 'pairs'.
 */
export interface PairRecords {
  readonly count: number;
  /** The records' words, valid until `release()` (they may lie where the device's read-back put them). */
  readonly words: Uint32Array;
  /** Frees what holds `words`; call it once, after the records are used (or dropped). */
  release(): void;
}

/** `release` of records that need none (a copy the caller owns). */
export function noRecordsToRelease(): void {
  // Nothing holds them but the array itself.
}

/** No records. */
export const NO_PAIR_RECORDS: PairRecords = { count: 0, words: new Uint32Array(0), release: noRecordsToRelease };

export type PairFinalizeResult =
  | {
      readonly kind: 'done';
      /** Σ rv·iv over the passing entries (SPEC §5), exact. */
      readonly checksumSum: bigint;
      readonly entries: number;
      readonly zeros: number;
      readonly records: PairRecords;
      /** The request's dense values when it asked for them (`denseValues`), else null. */
      readonly denseValues: DenseValues | null;
      /** The request's histogram counts (when it asked for them), else null. */
      readonly histogram: HistogramCounts | null;
    }
  /** A value left the device library's range (e.g. the checksum's [0, 16)), or records did not fit: finalize on the host. */
  | { readonly kind: 'needsHost'; readonly reason: string };

/** Bounds of the device formulas: every intermediate stays a normal double (see wgsl/softDouble.ts). */
const MIN_MAGNITUDE = 2 ** -200;
const MAX_MAGNITUDE = 2 ** 200;
/** uid = (c0·nv + c1)·4 + bits must stay below 2^52 (randomize's exact range, core/randomize.ts). */
const MAX_NUM_VECTOR = 2 ** 25;

/**
 * Whether the device library keeps every intermediate of a value a normal double (or zero) for these constants:
 * mult and p within [2^-200, 2^200] or 0, and tallies below 2^26. Values are products of mult, rsum·r and two
 * (2-way) or three (3-way) factors 1 − p·f with 0 ≤ f ≤ 1, so both stay far inside the double range.
 */
export function formulaConstantsOnDevice(k: { readonly multiplier: number; readonly param: number; readonly numField: number }): boolean {
  const inRange = (x: number): boolean => x === 0 || (Number.isFinite(x) && Math.abs(x) >= MIN_MAGNITUDE && Math.abs(x) <= MAX_MAGNITUDE);
  return inRange(k.multiplier) && inRange(k.param) && k.numField < 2 ** 26;
}

/** Whether checksum uids of a run of `numVector` vectors stay in the device's exact range. */
export function pairUidsOnDevice(numVector: number): boolean {
  return numVector < MAX_NUM_VECTOR;
}
