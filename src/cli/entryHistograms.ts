// Histograms of metric values per table entry (00, 01, …) over a run's metrics files, in two streaming passes.
import type { NumWay } from '../core/types.js';
import { readMetricsFileChunks } from '../io/index.js';
import { NO_ENTRY, type SnpNaming } from './snpNaming.js';

/** Counts of values in `numBins` equal bins over [minValue, maxValue], per entry. */
export interface EntryHistograms {
  /** Entry labels `00`, `01`, … (bits in SNP order, as `top` prints them). */
  readonly entries: readonly string[];
  readonly minValue: number;
  readonly maxValue: number;
  readonly numBins: number;
  /** `counts[e][b]`: records of entry e whose value falls in bin b. */
  readonly counts: readonly (readonly number[])[];
  /** Records per entry. */
  readonly totals: readonly number[];
}

/** What the bins must cover besides the records' values. */
export interface EntryHistogramOptions {
  /** Values the bins also span (thresholds, so that a plot can mark them); ignored when there are no records. */
  readonly spanValues?: readonly number[];
}

/**
 * Pass 1 finds the value range, pass 2 bins every record. Entries are taken with the coordinates in SNP
 * order (`naming`), so that `01` means the same thing here as in `top`, whatever the vector order.
 */
export function entryHistograms(
  files: readonly string[], numWay: NumWay, numBins: number, naming: SnpNaming, options: EntryHistogramOptions = {},
): EntryHistograms {
  const numEntries = 1 << numWay;
  const entries = Array.from({ length: numEntries }, (_, e) => e.toString(2).padStart(numWay, '0'));
  let minValue = Infinity;
  let maxValue = -Infinity;
  for (const file of files) {
    for (const chunk of readMetricsFileChunks(file, numWay)) {
      for (let r = 0; r < chunk.numRecords; r++) {
        const value = chunk.values[r];
        if (value < minValue) minValue = value;
        if (value > maxValue) maxValue = value;
      }
    }
  }
  const counts = entries.map(() => new Array<number>(numBins).fill(0));
  const totals = new Array<number>(numEntries).fill(0);
  if (minValue === Infinity) return { entries, minValue: 0, maxValue: 0, numBins, counts, totals };
  for (const value of options.spanValues ?? []) {
    minValue = Math.min(minValue, value);
    maxValue = Math.max(maxValue, value);
  }
  const width = maxValue - minValue;
  for (const file of files) {
    for (const chunk of readMetricsFileChunks(file, numWay)) {
      for (let r = 0; r < chunk.numRecords; r++) {
        const entryText = naming.namedRecord(chunk.coords, r, numWay, chunk.values[r]).entry;
        // One value per tuple (Czekanowski): every record counts as entry 0.
        const entry = entryText === NO_ENTRY ? 0 : parseInt(entryText, 2);
        const bin = width === 0 ? 0 : Math.min(numBins - 1, Math.floor(((chunk.values[r] - minValue) / width) * numBins));
        counts[entry][bin]++;
        totals[entry]++;
      }
    }
  }
  return { entries, minValue, maxValue, numBins, counts, totals };
}
