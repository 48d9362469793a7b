// What the report reads from a run-info file's `run` object beyond its sizes: the threshold, `--top`, and the
// histogram of every value that `run --histograms` recorded (SPEC §9's counts, kept in run.json as decimal strings).
import { UserError } from '../../core/errors.js';
import type { Threshold } from '../../core/thresholds.js';
import type { LoadedRunInfo } from '../runInfoFile.js';

/** The counts of `run --histograms`: per column, its count by bucket of width `bucketWidth` from 0. */
export interface RecordedHistogram {
  readonly file: string;
  readonly bucketWidth: number;
  readonly numBuckets: number;
  readonly columns: readonly string[];
  /** `counts[c][b]` as exact integers. */
  readonly counts: readonly (readonly bigint[])[];
  readonly numUndefined: bigint;
}

/** How the run chose the records it kept. */
export interface RecordedSelection {
  readonly threshold: Threshold;
  /** `run --top N`: only the N strongest were kept; null: every entry passing the threshold. */
  readonly top: number | null;
  /** Whether the run had an LD window (pairs outside it have no record either). */
  readonly windowed: boolean;
}

const DECIMAL = /^\d{1,30}$/;

/** The run's threshold and `--top`. @throws UserError naming the run-info file when they are malformed. */
export function recordedSelection(info: LoadedRunInfo): RecordedSelection {
  const fail = (what: string): never => { throw new UserError(`run-info file ${info.path}: ${what}`); };
  const { threshold, top } = info.run;
  if (top !== undefined && top !== null && !(Number.isSafeInteger(top) && (top as number) > 0)) fail('run.top is not a positive integer');
  const { window } = info.run;
  return { threshold: parseThreshold(threshold, fail), top: typeof top === 'number' ? top : null, windowed: window !== undefined && window !== null };
}

function parseThreshold(value: unknown, fail: (what: string) => never): Threshold {
  if (value === null || value === undefined) return { kind: 'none' };
  if (typeof value !== 'object') return fail('run.threshold is not an object');
  const fields = value as Record<string, unknown>;
  const numbers = (names: readonly string[]): void => {
    if (names.some((name) => typeof fields[name] !== 'number')) fail(`run.threshold of kind ${String(fields.kind)} lacks ${names.join(', ')}`);
  };
  switch (fields.kind) {
    case 'none': return { kind: 'none' };
    case 'single': numbers(['value']); break;
    case 'multi2': numbers(['tLL', 'tLH', 'tHH', 'tLLHH']); break;
    case 'multi3': numbers(['tLLL', 'tLLH', 'tLHH', 'tHHH', 'tLLLHHH']); break;
    default: return fail(`run.threshold has an unknown kind ${JSON.stringify(fields.kind)}`);
  }
  return value as Threshold;
}

/**
 * The histogram the run recorded, or null when it ran without `--histograms`.
 * @throws UserError naming the run-info file when the record is malformed.
 */
export function recordedHistogram(info: LoadedRunInfo): RecordedHistogram | null {
  const value = info.run.histogram;
  if (value === null || value === undefined) return null;
  const fail = (what: string): never => { throw new UserError(`run-info file ${info.path}: run.histogram ${what}`); };
  if (typeof value !== 'object') return fail('is not an object');
  const { file, numBuckets, bucketWidth, columns, counts, undefinedValues } = value as Record<string, unknown>;
  if (typeof file !== 'string') fail('has no file name');
  if (!Number.isSafeInteger(numBuckets) || (numBuckets as number) < 1) fail('numBuckets is not a positive integer');
  if (typeof bucketWidth !== 'number' || !(bucketWidth > 0)) fail('bucketWidth is not a positive number');
  if (!Array.isArray(columns) || columns.length === 0 || columns.some((name) => typeof name !== 'string')) fail('columns is not a list of names');
  if (typeof counts !== 'object' || counts === null) fail('counts is not an object');
  if (typeof undefinedValues !== 'string' || !DECIMAL.test(undefinedValues)) fail('undefinedValues is not a decimal count');
  const byName = counts as Record<string, unknown>;
  const parsed = (columns as string[]).map((name) => {
    const column = byName[name];
    if (!Array.isArray(column) || column.length !== numBuckets || column.some((count) => typeof count !== 'string' || !DECIMAL.test(count))) {
      fail(`counts.${name} is not ${String(numBuckets)} decimal counts`);
    }
    return (column as string[]).map((count) => BigInt(count));
  });
  return {
    file: file as string, bucketWidth: bucketWidth as number, numBuckets: numBuckets as number,
    columns: columns as string[], counts: parsed, numUndefined: BigInt(undefinedValues as string),
  };
}

/**
 * The threshold that applies to values named by their L/H letters (a histogram column such as `LH` or `LL+HH`, or
 * an entry's letters sorted, L before H), as CoMet's per-entry forms assign them; null when none applies (no
 * threshold, or a sum column under a single threshold).
 */
export function thresholdOfLetters(threshold: Threshold, letters: string): number | null {
  const value = assignedThreshold(threshold, letters);
  // A negative threshold keeps everything (CoMet's convention): nothing to mark.
  return value === null || value < 0 ? null : value;
}

function assignedThreshold(threshold: Threshold, letters: string): number | null {
  switch (threshold.kind) {
    case 'none': return null;
    case 'single': return letters.includes('+') ? null : threshold.value;
    case 'multi2': {
      const byLetters: Record<string, number> = { LL: threshold.tLL, LH: threshold.tLH, HH: threshold.tHH, 'LL+HH': threshold.tLLHH };
      return byLetters[letters] ?? null;
    }
    case 'multi3': {
      const byLetters: Record<string, number> = {
        LLL: threshold.tLLL, LLH: threshold.tLLH, LHH: threshold.tLHH, HHH: threshold.tHHH, 'LLL+HHH': threshold.tLLLHHH,
      };
      return byLetters[letters] ?? null;
    }
  }
}

/** An entry's bits (`01`, `110`) as sorted L/H letters (`LH`, `LHH`), the names of its threshold and column. */
export function entryLetters(entry: string): string {
  const ones = [...entry].filter((bit) => bit === '1').length;
  return 'L'.repeat(entry.length - ones) + 'H'.repeat(ones);
}
