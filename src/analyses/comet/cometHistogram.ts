// CoMet's histograms of CCC and DUO values (SPEC §9): (int)(1000·mult) buckets, one column per count of 1 bits in an
// entry (LL, LH, HH; 3-way LLL, LLH, LHH, HHH) and one of the sum of the all-0 and all-1 entries (LL+HH, LLL+HHH).
import { UserError } from '../../core/errors.js';
import { histogramBucketsFor, type HistogramLayout } from '../../core/histogramLayout.js';
import type { NumWay } from '../../core/types.js';

const COLUMNS_2 = ['LL', 'LH', 'HH', 'LL+HH'];
const COLUMNS_3 = ['LLL', 'LLH', 'LHH', 'HHH', 'LLL+HHH'];

/** Ones in entry bits e (the entry's column: LL…, LH…, HH…). */
function onesOf(e: number): number {
  return (e & 1) + ((e >> 1) & 1) + ((e >> 2) & 1);
}

/**
 * SPEC §9's layout for a run of `numWay` with multiplier `multiplier`: values lie in [0, mult], hence
 * (int)(1000·mult) buckets, the last one also holding larger sums (LL+HH) by clamping.
 * @throws UserError when the multiplier gives no bucket.
 */
export function cometHistogramLayout(metric: string, numWay: NumWay, multiplier: number): HistogramLayout {
  const numBuckets = histogramBucketsFor(multiplier);
  if (numBuckets < 1) {
    throw new UserError(`--histograms needs (int)(1000·multiplier) ≥ 1 buckets; --${metric}-multiplier ${multiplier} gives none`);
  }
  const numEntries = 2 ** numWay;
  const allOnes = numEntries - 1;
  return {
    numBuckets,
    columnNames: numWay === 2 ? COLUMNS_2 : COLUMNS_3,
    entryColumns: Array.from({ length: numEntries }, (_, e) => onesOf(e)),
    sumColumns: [{ column: numWay + 1, entryBits: [0, allOnes] }],
  };
}
