// Size limits that keep every tally exact (SPEC §2): checked before a run starts, never wrapped.
import { UserError } from './errors.js';
import type { MetricKind, NumWay } from './types.js';

/** CoMet-compatible bound: the largest possible tally must stay below 2^26. */
export const TALLY_LIMIT = 2 ** 26;

/** Largest value a single tally can take: C^way · nf for CCC and r² (Σ g_i g_j ≤ 4·nf), nf for DUO. */
export function maxTally(metric: MetricKind, numWay: NumWay, numField: number): number {
  return metric === 'duo' ? numField : (numWay === 2 ? 4 : 8) * numField;
}

/** Throws a one-line UserError when `numField` would let a tally reach 2^26. */
export function checkTallyLimits(metric: MetricKind, numWay: NumWay, numField: number): void {
  const max = maxTally(metric, numWay, numField);
  if (max >= TALLY_LIMIT) {
    const factor = max / numField;
    throw new UserError(
      `--fields ${numField} is too large for ${metric.toUpperCase()} ${numWay}-way: tallies reach ${factor}·nf = ${max} ≥ 2^26 (at most ${Math.ceil(TALLY_LIMIT / factor) - 1} fields)`,
    );
  }
}

/** Vector indices must fit the output coordinate 2·G + E in an unsigned 32-bit word. */
export function checkVectorLimit(numVector: number): void {
  if (numVector > 2 ** 31) throw new UserError(`--vectors ${numVector} exceeds 2^31, the most an output coordinate can index`);
}
