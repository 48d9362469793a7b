// Size limits that keep every tally exact (SPEC §2): checked before a run starts, never wrapped.
import { UserError } from './errors.js';
import type { NumWay } from './types.js';

/** CoMet-compatible bound: the largest possible tally must stay below 2^26. */
export const TALLY_LIMIT = 2 ** 26;

/**
 * Throws a one-line UserError when `numField` would let a tally reach 2^26: `perField` is the most one field adds to
 * a tally of the metric `name` (e.g. C^way for CoMet's CCC), so tallies reach perField·nf.
 */
export function checkTallyLimit(name: string, numWay: NumWay, perField: number, numField: number): void {
  const max = perField * numField;
  if (max >= TALLY_LIMIT) {
    throw new UserError(
      `--fields ${numField} is too large for ${name.toUpperCase()} ${numWay}-way: tallies reach ${perField}·nf = ${max} ≥ 2^26 (at most ${Math.ceil(TALLY_LIMIT / perField) - 1} fields)`,
    );
  }
}

/** Vector indices must fit the output coordinate 2·G + E in an unsigned 32-bit word. */
export function checkVectorLimit(numVector: number): void {
  if (numVector > 2 ** 31) throw new UserError(`--vectors ${numVector} exceeds 2^31, the most an output coordinate can index`);
}

/** Most records `run --top` keeps: up to 2N records are held per rank and per finalize thread (memoryEstimate.ts). */
export const MAX_TOP_RECORDS = 100_000_000;
