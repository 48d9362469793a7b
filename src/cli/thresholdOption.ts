// Parses `--threshold`: one value for every table entry, or CoMet's per-entry multi-threshold forms.
//
// The multi forms follow CoMet's `Thresholds` class (src/env.hh): a threshold t is active when t ≥ 0, and
// all values of a form must agree on that. Entries are named by their bits, L = 0 and H = 1.
//   2-way, 4 values `tLL,tLH,tHH,tLLHH`: entry 00 passes if v00 > tLL, or if v00 + v11 > tLLHH with
//     v00 > 0 and v11 > 0; entries 01 and 10 pass if their value > tLH; entry 11 passes if v11 > tHH, or by
//     the same LL+HH rule.
//   3-way, 5 values `tLLL,tLLH,tLHH,tHHH,tLLLHHH`: entries with one H compare with tLLH, two H with tLHH;
//     000 and 111 pass on their own threshold or if v000 + v111 > tLLLHHH with both positive.
// Values are the float32 metric values of the entry's own table. CoMet's own string parser reads only the
// single form (multi is marked TODO there), so the comma separator is snptally's choice.
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { parseFiniteNumber } from './numberOptions.js';

/** What `--threshold` asked for. */
export type ThresholdChoice =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly value: number }
  | { readonly kind: 'multi2'; readonly tLL: number; readonly tLH: number; readonly tHH: number; readonly tLLHH: number }
  | {
      readonly kind: 'multi3'; readonly tLLL: number; readonly tLLH: number; readonly tLHH: number;
      readonly tHHH: number; readonly tLLLHHH: number;
    };

/**
 * Parses the option text (undefined: no threshold). A negative single value means no threshold, as in
 * CoMet; a multi form whose values are all negative is no threshold too.
 */
export function parseThresholdOption(text: string | undefined, numWay: NumWay): ThresholdChoice {
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

/** Human-readable form for summaries: `none`, `0.5`, or the per-entry values. */
export function describeThreshold(choice: ThresholdChoice): string {
  switch (choice.kind) {
    case 'none': return 'none';
    case 'single': return String(choice.value);
    case 'multi2': return `LL ${choice.tLL} LH ${choice.tLH} HH ${choice.tHH} LL+HH ${choice.tLLHH}`;
    case 'multi3':
      return `LLL ${choice.tLLL} LLH ${choice.tLLH} LHH ${choice.tLHH} HHH ${choice.tHHH} LLL+HHH ${choice.tLLLHHH}`;
  }
}
