// The contract of 3-way finalize on the device: a kernel set that offers `finalizeTriples` computes one mGEMM3
// call's tallies and turns them, where they lie, into the eight SPEC §3 values of each triple, the threshold,
// the exact checksum partial sum and the passing records; only those small results come back. The engine
// decides what is precomputed (per-vector factors, 2-way pair counts); the kernel set only combines them.
import type { PopcountGemmRequest } from './contract.js';
import { formulaConstantsOnDevice } from './pairFinalize.js';

/** u32 words per vector in `TripleFinalizeRequest.iVectors` / `jVector` / `kVectors`. */
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
 * Dense 3-way tallies besides T[ccc]: T[ccm] = Σ c_i c_j and T[mcc] = Σ c_j c_k for this j (per request row
 * and column), and the whole block-pair matrix of T[cmc] = Σ c_i c_k, which the kernel set may keep on the
 * device (the same object for every j of a unit: the engine never changes it after its first use).
 */
export interface DenseTriplePairCounts {
  /** numI values: T[ccm] of request row r and j. */
  readonly ij: Uint32Array;
  /** numK values: T[mcc] of j and request column c. */
  readonly jk: Uint32Array;
  readonly ik: PairCountMatrix;
  /** Row and column of `ik` of request row 0 and column 0. */
  readonly ikRowFirst: number;
  readonly ikColFirst: number;
}

export interface TripleFinalizeRequest {
  /**
   * The mGEMM3 call: rows are the triples' i (A = (i AND j) products for one j), columns their k; term
   * group g computes T[products[g]] (index 4u + 2v + w, 1 = count c, 0 = mask m).
   */
  readonly gemm: PopcountGemmRequest;
  readonly products: readonly number[];
  readonly formula: TripleFormula;
  /** Per-vector words of the request's rows (numI), of j (one) and of its columns (numK). */
  readonly iVectors: TripleVectorWords;
  readonly jVector: TripleVectorWords;
  readonly kVectors: TripleVectorWords;
  /** Dense runs only (null when sparse). */
  readonly pairCounts: DenseTriplePairCounts | null;
  /** Global vector indices of request row 0, of j and of request column 0 (coordinates, checksum uids). */
  readonly iVectorFirst: number;
  readonly jVectorGlobal: number;
  readonly kVectorFirst: number;
  /** nv of the run (checksum uids). */
  readonly numVector: number;
  readonly threshold: TripleThresholdBits;
  /** Return the passing entries' records. */
  readonly records: boolean;
}

/**
 * Passing records sorted as the CPU path emits them: `words[2n]` = float32 bits of the value, `words[2n + 1]` =
 * key `(r · numK + c) · 8 + 4a + 2b + c'` (request row r, column c, entry bits a of i, b of j, c' of k), keys
 * ascending — so that, read as little-endian u64s, records sort by key.
 */
export interface TripleRecords {
  readonly count: number;
  readonly words: Uint32Array;
}

export type TripleFinalizeResult =
  | {
      readonly kind: 'done';
      /** Σ rv·iv over the passing entries (SPEC §5), exact. */
      readonly checksumSum: bigint;
      readonly entries: number;
      readonly zeros: number;
      readonly records: TripleRecords;
    }
  /** A passing value left the checksum's [0, 16), or records did not fit: finalize this call on the host. */
  | { readonly kind: 'needsHost'; readonly reason: string };

/** Checksum uids + the weight's offsets (< 2^30) must stay below 2^52 (randomize's exact range, core/randomize.ts). */
const MAX_UID = 2 ** 52 - 2 ** 30;

/**
 * Whether device finalize computes this run's triples exactly (the constants as for pairs, pairFinalize.ts, and
 * uids ((c0·nv + c1)·nv + c2)·8 + 7 < nv³·8 within randomize's range); otherwise the engine finalizes on the host.
 */
export function tripleFormulaOnDevice(formula: TripleFormula, numVector: number): boolean {
  return formulaConstantsOnDevice(formula) && numVector ** 3 * 8 < MAX_UID;
}

/** Record keys are u32: a request's triples × 8 entries must stay below 2^32. */
export function tripleRecordKeysFit(numI: number, numK: number): boolean {
  return numI * numK * 8 <= 2 ** 32;
}
