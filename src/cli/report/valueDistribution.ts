// The report's value distribution: the histogram of every value when the run recorded one (`run --histograms`),
// else the values of the records it kept; one log-scale panel per column (or entry) that has values, threshold marked.
import type { NumWay } from '../../core/types.js';
import type { EntryHistograms } from '../entryHistograms.js';
import type { LogHistogramPanel } from './logHistogramSvg.js';
import { entryLetters, thresholdOfLetters, type RecordedHistogram, type RecordedSelection } from './recordedRun.js';
import { formatTick } from './svgText.js';

/** Panels and the lines that say what they show. */
export interface ValueDistribution {
  /** Whether the panels count every value of the run (a recorded histogram) or only the kept records. */
  readonly source: 'recorded histogram' | 'kept records';
  /** One sentence: what is counted, from where, in which bins. */
  readonly description: string;
  readonly panels: readonly LogHistogramPanel[];
  /** One sentence naming the columns or entries without values (no panel drawn for them), or null. */
  readonly omitted: string | null;
}

/** SVG units of a panel alone on its row, and of one of several side by side. */
const FULL_WIDTH = 1200;
const HALF_WIDTH = 600;

/** Names of values for titles: r² has one value per pair, CCC/DUO one per table entry. */
export interface MetricNaming {
  readonly metric: string;
  readonly numWay: NumWay;
}

/**
 * Panels of a recorded histogram: its buckets regrouped into at most `maxBins` bins over the buckets that hold values
 * (and the thresholds, so their markers show), one panel per column with values.
 */
export function recordedDistribution(
  histogram: RecordedHistogram, selection: RecordedSelection, maxBins: number, metric: MetricNaming,
): ValueDistribution {
  const { counts, columns, bucketWidth } = histogram;
  const totals = counts.map((column) => column.reduce((sum, count) => sum + count, 0n));
  let first = Infinity;
  let last = -Infinity;
  for (const column of counts) {
    column.forEach((count, b) => {
      if (count > 0n) { first = Math.min(first, b); last = Math.max(last, b); }
    });
  }
  const thresholds = columns.map((name) => thresholdOfLetters(selection.threshold, name));
  for (const threshold of thresholds) {
    if (threshold === null) continue;
    const bucket = Math.min(histogram.numBuckets - 1, Math.floor(threshold / bucketWidth));
    first = Math.min(first, bucket);
    last = Math.max(last, bucket);
  }
  const shown = columns.map((_, c) => c).filter((c) => totals[c] > 0n);
  if (shown.length === 0 || first === Infinity) first = last = 0;
  const group = Math.max(1, Math.ceil((last + 1 - first) / maxBins));
  const startBucket = Math.floor(first / group) * group;
  const numBins = Math.floor(last / group) - Math.floor(first / group) + 1;
  const binned = counts.map((column) => {
    const bins = new Array<number>(numBins).fill(0);
    for (let b = startBucket; b <= last; b++) bins[Math.floor((b - startBucket) / group)] += Number(column[b]);
    return bins;
  });
  const maxCount = Math.max(1, ...shown.flatMap((c) => binned[c]));
  const width = shown.length === 1 ? FULL_WIDTH : HALF_WIDTH;
  const total = metric.metric === 'r2' ? `${totals[0]} pairs` : `${totals.reduce((sum, t) => sum + t, 0n)} counts`;
  const undefinedNote = histogram.numUndefined > 0n ? `; ${histogram.numUndefined} undefined values (NaN) are in no bin` : '';
  const empty = columns.filter((_, c) => totals[c] === 0n);
  return {
    source: 'recorded histogram',
    description: `Every value of the run (${total}), before any threshold: the histogram run --histograms recorded ` +
      `(${histogram.file}), in bins of ${formatTick(group * bucketWidth)}${undefinedNote}.`,
    panels: shown.map((c) => ({
      title: `${columnTitle(columns[c], metric)} (${totals[c]} values)`,
      binStart: startBucket * bucketWidth, binWidth: group * bucketWidth, counts: binned[c], maxCount,
      threshold: thresholds[c], width,
    })),
    omitted: empty.length === 0 ? null : `No panel for ${empty.join(', ')}: no values.`,
  };
}

/** Panels of the kept records' values, one per entry that has records; the caller's bins span the thresholds. */
export function keptDistribution(
  histograms: EntryHistograms, selection: RecordedSelection, metric: MetricNaming,
): ValueDistribution {
  const shown = histograms.entries.map((_, e) => e).filter((e) => histograms.totals[e] > 0);
  const maxCount = Math.max(1, ...shown.flatMap((e) => histograms.counts[e]));
  const binWidth = histograms.numBins === 0 ? 0 : (histograms.maxValue - histograms.minValue) / histograms.numBins;
  const width = shown.length === 1 ? FULL_WIDTH : HALF_WIDTH;
  const kept = selection.top === null ? 'the records the run kept (those above its threshold)' : `the ${selection.top} strongest records the run kept (run --top)`;
  const empty = histograms.entries.filter((_, e) => histograms.totals[e] === 0);
  const why = metric.metric === 'r2' ? ' (r² has one value per pair)' : '';
  return {
    source: 'kept records',
    description: `The run recorded no histogram of all its values (run --histograms FILE records one); shown: ${kept}, ` +
      `${histograms.totals.reduce((sum, t) => sum + t, 0)} values in bins of ${formatTick(binWidth)}.`,
    panels: shown.map((e) => ({
      title: `${metric.metric === 'r2' ? 'r²' : `entry ${histograms.entries[e]}`} (${histograms.totals[e]} kept values)`,
      binStart: histograms.minValue, binWidth: binWidth > 0 ? binWidth : 1, counts: histograms.counts[e], maxCount,
      threshold: thresholdOfLetters(selection.threshold, entryLetters(histograms.entries[e])), width,
    })),
    omitted: shown.length === 0 ? 'No panel: the run kept no records.'
      : empty.length === 0 ? null : `No panel for entries ${empty.join(', ')}: no records${why}.`,
  };
}

/** The thresholds of every entry's letters that apply: the kept values' bins are widened to show them. */
export function entryThresholds(selection: RecordedSelection, numWay: NumWay): number[] {
  const values: number[] = [];
  for (let ones = 0; ones <= numWay; ones++) {
    const threshold = thresholdOfLetters(selection.threshold, 'L'.repeat(numWay - ones) + 'H'.repeat(ones));
    if (threshold !== null) values.push(threshold);
  }
  return values;
}

function columnTitle(column: string, metric: MetricNaming): string {
  if (metric.metric === 'r2') return 'r²';
  return column.includes('+') ? `sum ${column}` : `entries ${column}`;
}
