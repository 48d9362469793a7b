// The check the epistasis search tests share: a search's list is a top-N of the brute-force reference.
import { expect } from 'vitest';
import type { EpistasisSearchResult } from '../../../src/cli/epistasis/epistasisSearch.js';
import type { naiveEpistasis } from './naiveEpistasis.js';

/** The same scores rank by rank, each tuple's table and score; where the reference has no near-tie, the very tuple. */
export function expectTopOf(result: EpistasisSearchResult, want: ReturnType<typeof naiveEpistasis>, top: number): void {
  const byTuple = new Map(want.map((tuple) => [tuple.snps.join(','), tuple]));
  expect(result.hits.length).toBe(Math.min(top, want.length));
  result.hits.forEach((hit, rank) => {
    const reference = byTuple.get(hit.vectors.join(','))!;
    expect(hit.table.controls).toEqual(reference.controls);
    expect(hit.table.cases).toEqual(reference.cases);
    expect(hit.score).toBeCloseTo(reference.score, 9);
    expect(hit.score).toBeCloseTo(want[rank].score, 9);
    const neighbours = [want[rank - 1], want[rank + 1]].filter((t) => t !== undefined);
    if (neighbours.every((t) => Math.abs(t.score - want[rank].score) > 1e-9)) expect(hit.vectors).toEqual(want[rank].snps);
  });
}
