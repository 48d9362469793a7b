// The contract of 2-way finalize on the device: a kernel set that offers `finalizePairs` computes a request's
// tallies and turns them, where they lie, into SPEC §3 values, the threshold, the exact checksum partial sum
// and the passing records; only those small results come back. The engine decides what is precomputed.
import type { PopcountGemmRequest } from './contract.js';

/** u32 words per vector in `PairFinalizeRequest.rowVectors` / `colVectors`. */
export const PAIR_VECTOR_WORDS = 8;

/**
 * Per-vector words, PAIR_VECTOR_WORDS per row of the request's plane matrix (pad rows too):
 * `[s1, count, g0.lo, g0.hi, g1.lo, g1.hi, 0, 0]` — s1 = Σ c1 over all fields, count = present fields (sparse),
 * and for dense formulas the doubles `g_a = 1 − p·(((1/C)·(1/m))·s_a)` (s0 = C·m − s1) as IEEE bits.
 */
export type PairVectorWords = Uint32Array;

/** The run's SPEC §3 constants (doubles as JavaScript numbers). */
export interface PairFormula {
  readonly sparse: boolean;
  /** C: 2 for CCC, 1 for DUO. */
  readonly countedBits: 1 | 2;
  readonly multiplier: number;
  readonly param: number;
  /** m = nf (dense formulas). */
  readonly numField: number;
  /** Dense rsum = (1/C²)·(1/m) and 1/C, computed by the caller as its CPU formulas do. */
  readonly rsum: number;
  readonly recipC: number;
}

/**
 * Threshold as float32 bit patterns: an entry's value v passes `single` iff fround(v) > t, which for
 * t ≥ 0 is: fround(v) is not negative and its bits exceed `above` = the bits of the largest float32 ≤ t.
 */
export type PairThresholdBits =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly above: number }
  | { readonly kind: 'multi2'; readonly ll: number; readonly lh: number; readonly hh: number; readonly llhh: number };

export interface PairFinalizeRequest {
  /** Tallies to compute: term groups of a 2-way layout, dense [cc] or sparse [cc, cm, mc, mm]. */
  readonly gemm: PopcountGemmRequest;
  readonly formula: PairFormula;
  /** Per-vector words of `gemm.a`'s rows and `gemm.b`'s rows (the same array for the same matrix: kept on the device). */
  readonly rowVectors: PairVectorWords;
  readonly colVectors: PairVectorWords;
  /** Global vector index of row 0 of `gemm.a` / `gemm.b` (coordinates and checksum uids). */
  readonly rowVectorFirst: number;
  readonly colVectorFirst: number;
  /** nv of the run (checksum uids). */
  readonly numVector: number;
  readonly threshold: PairThresholdBits;
  /** Return the passing entries' records. */
  readonly records: boolean;
}

/**
 * Passing records as the output lays them out (SPEC §7), in the CPU path's order (row by row, columns and entries
 * ascending): `words[3k]` = 2·i + a, `words[3k + 1]` = 2·j + b, `words[3k + 2]` = float32 bits of the value, where
 * i = rowVectorFirst + row and j = colVectorFirst + col.
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

/** Whether device finalize computes this run's values exactly; otherwise the engine finalizes on the host. */
export function pairFormulaOnDevice(formula: PairFormula, numVector: number): boolean {
  return formulaConstantsOnDevice(formula) && numVector < MAX_NUM_VECTOR;
}
