// Parses `--threshold`: one value for every table entry, or CoMet's per-entry multi-threshold forms
// (their meaning: src/core/thresholds.ts). A threshold t is active when t ≥ 0, and all values of a form must
// agree on that. CoMet's own string parser reads only the single form, so the comma separator is snptally's.
import { UserError } from '../core/errors.js';
import type { Threshold } from '../core/thresholds.js';
import type { NumWay } from '../core/types.js';
import { parseFiniteNumber } from './numberOptions.js';

/**
 * Parses the option text (undefined: no threshold). A negative single value means no threshold, as in
 * CoMet; a multi form whose values are all negative is no threshold too.
 */
export function parseThresholdOption(text: string | undefined, numWay: NumWay): Threshold {
  if (text === undefined) return { kind: 'none' };
  const values = text.split(',').map((part) => parseFiniteNumber('--threshold', part));
  if (values.length === 1) return values[0] >= 0 ? { kind: 'single', value: values[0] } : { kind: 'none' };

  const expectedCount = numWay === 2 ? 4 : 5;
  if (values.length !== expectedCount) {
    throw new UserError(
      `--threshold takes 1 value or, for --way ${numWay}, ${expectedCount} comma-separated values ` +
      `(${numWay === 2 ? 'tLL,tLH,tHH,tLLHH' : 'tLLL,tLLH,tLHH,tHHH,tLLLHHH'}); got ${values.length}`);
  }
  const numActive = values.filter((value) => value >= 0).length;
  if (numActive === 0) return { kind: 'none' };
  if (numActive !== values.length) {
    throw new UserError('--threshold values must be all non-negative (active) or all negative (no threshold)');
  }
  const [t0, t1, t2, t3, t4] = values;
  return numWay === 2
    ? { kind: 'multi2', tLL: t0, tLH: t1, tHH: t2, tLLHH: t3 }
    : { kind: 'multi3', tLLL: t0, tLLH: t1, tLHH: t2, tHHH: t3, tLLLHHH: t4 };
}
