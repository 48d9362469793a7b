// Core value types shared by every layer: metrics, ways, problem sizes.

/** Which similarity metric: Custom Correlation Coefficient or DUO. */
export type MetricKind = 'ccc' | 'duo';

/** 2-way (pairs) or 3-way (triples). */
export type NumWay = 2 | 3;

/** Metric settings of a run (SPEC §3). */
export interface MetricSpec {
  readonly metric: MetricKind;
  readonly numWay: NumWay;
  /** Sparse mode: the code `10` means missing. */
  readonly sparse: boolean;
  /** The `p` of SPEC §3 (default 2/3). */
  readonly param: number;
  /** The `mult` of SPEC §3 (default 9/2 for CCC, 4 for DUO). */
  readonly multiplier: number;
}

/** Global problem size. */
export interface ProblemSize {
  readonly numVector: number;
  readonly numField: number;
}

/** Bits counted per field: CCC counts both bits (C = 2), DUO only the low one (C = 1). */
export function countedBitsPerField(metric: MetricKind): 1 | 2 {
  return metric === 'ccc' ? 2 : 1;
}

/** SPEC §3 defaults. */
export function defaultMultiplier(metric: MetricKind): number {
  return metric === 'ccc' ? 9 / 2 : 4;
}
export const DEFAULT_PARAM = 2 / 3;

/** Number of table entries of one pair or triple: 2^way. */
export function numEntries(numWay: NumWay): 4 | 8 {
  return numWay === 2 ? 4 : 8;
}
