// The k strongest metrics records of a set of files, in SNP terms, with bounded memory (≤ 2k kept at a time).
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { readMetricsFileChunks } from '../io/index.js';
import type { NamedRecord, SnpNaming } from './snpNaming.js';

/**
 * Most records `top` keeps (`-k`; with `-k 0`, most that may pass the filters): up to twice as many are held while
 * reading, some 150 bytes each, so this bounds the memory to a few hundred MiB.
 */
export const MAX_TOP_COUNT = 1_000_000;

/** Which records `top` keeps. */
export interface TopSelection {
  /** Number of records to keep; 0 keeps every record that passes the filters. */
  readonly count: number;
  /** Keep records with value ≥ this (null: no lower bound). */
  readonly minValue: number | null;
  /** Keep records with value ≤ this (null: no upper bound). */
  readonly maxValue: number | null;
  /** Keep only this table entry, e.g. `11` (null: all entries). */
  readonly entry: string | null;
  /** Which values are the stronger (runInfoFile.ts strongerRecordValues): those are kept. */
  readonly strongerValues: 'larger' | 'smaller';
}

/**
 * The stronger value first (descending, or ascending when smaller values are the stronger), then ascending SNP
 * indices, then entry: a total order, so ties print the same way every time.
 */
export function compareRecordsForTop(a: NamedRecord, b: NamedRecord, stronger: 'larger' | 'smaller'): number {
  if (a.value !== b.value) return stronger === 'larger' ? b.value - a.value : a.value - b.value;
  for (let w = 0; w < a.snpIndices.length; w++) {
    if (a.snpIndices[w] !== b.snpIndices[w]) return a.snpIndices[w] - b.snpIndices[w];
  }
  return a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0;
}

/**
 * The selected records of `files`, best first. Candidates are gathered in a buffer that is sorted and
 * cut back to `count` whenever it reaches 2·count, so memory stays O(count) for any file size.
 */
export function selectTopRecords(
  files: readonly string[], numWay: NumWay, naming: SnpNaming, selection: TopSelection,
): NamedRecord[] {
  const kept: NamedRecord[] = [];
  const limit = selection.count === 0 ? Infinity : 2 * selection.count;
  const cut = (): void => {
    kept.sort((a, b) => compareRecordsForTop(a, b, selection.strongerValues));
    if (selection.count > 0 && kept.length > selection.count) kept.length = selection.count;
  };
  for (const file of files) {
    for (const chunk of readMetricsFileChunks(file, numWay)) {
      for (let r = 0; r < chunk.numRecords; r++) {
        const value = chunk.values[r];
        if (selection.minValue !== null && !(value >= selection.minValue)) continue;
        if (selection.maxValue !== null && !(value <= selection.maxValue)) continue;
        const record = naming.namedRecord(chunk.coords, r, numWay, value);
        if (selection.entry !== null && record.entry !== selection.entry) continue;
        kept.push(record);
        if (kept.length >= limit) cut();
        if (selection.count === 0 && kept.length > MAX_TOP_COUNT) {
          throw new UserError(`more than ${MAX_TOP_COUNT} records pass the filters: give -k, --min, --max or --entry to keep fewer`);
        }
      }
    }
  }
  cut();
  return kept;
}
