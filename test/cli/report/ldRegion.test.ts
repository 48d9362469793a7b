// The LD heatmap's window choice and the decay bins against brute force: every window counted pair by pair, every
// bin's mean and median from its sorted values.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../src/core/seededRandom.js';
import { LdDecayBinner } from '../../../src/cli/report/ldDecay.js';
import { chromosomeSegments, LdRegionCounter } from '../../../src/cli/report/ldRegion.js';

/** Random pairs i < j, mostly near each other (as kept LD pairs are). */
function randomPairs(numSnp: number, numPairs: number, seed: number): Array<[number, number]> {
  const random = mulberry32(seed);
  const pairs: Array<[number, number]> = [];
  while (pairs.length < numPairs) {
    const i = Math.floor(random() * numSnp);
    const j = i + 1 + Math.floor(random() ** 3 * (numSnp - i));
    if (j < numSnp) pairs.push([i, j]);
  }
  return pairs;
}

describe('LdRegionCounter', () => {
  it('picks the first window of at most W SNPs on one chromosome with the most pairs, as a brute-force count does', () => {
    for (const [seed, maxSnps] of [[1, 10], [2, 25], [3, 7], [4, 200]] as const) {
      const numSnp = 120;
      const chrom = Array.from({ length: numSnp }, (_, s) => (s < 50 ? '1' : s < 58 ? '2' : s < 100 ? '3' : '1'));
      const segments = chromosomeSegments(chrom, numSnp);
      expect(segments).toEqual([{ start: 0, end: 50 }, { start: 50, end: 58 }, { start: 58, end: 100 }, { start: 100, end: 120 }]);
      const pairs = randomPairs(numSnp, 400, seed);
      const counter = new LdRegionCounter(segments, numSnp, maxSnps);
      for (const [i, j] of pairs) counter.add(i, j);
      // Brute force: every full window (or whole short segment), its pairs counted one by one.
      let best: { start: number; end: number; numPairs: number } | null = null;
      for (const segment of segments) {
        for (let start = segment.start; start <= Math.max(segment.start, segment.end - maxSnps); start++) {
          const end = Math.min(start + maxSnps, segment.end);
          const numPairs = pairs.filter(([i, j]) => i >= start && j < end).length;
          if (numPairs > 0 && (best === null || numPairs > best.numPairs)) best = { start, end, numPairs };
        }
      }
      expect(counter.best()).toEqual(best);
    }
  });

  it('finds no window when no pair lies within one chromosome and W SNPs', () => {
    const counter = new LdRegionCounter(chromosomeSegments(['1', '1', '2', '2'], 4), 4, 200);
    counter.add(0, 2);
    counter.add(1, 3);
    expect(counter.best()).toBeNull();
    expect(chromosomeSegments(null, 5)).toEqual([{ start: 0, end: 5 }]);
  });
});

describe('LdDecayBinner', () => {
  it('bins by floor(distance / width) with the mean and median of each bin', () => {
    const random = mulberry32(9);
    const width = 500;
    const pairs = Array.from({ length: 1000 }, () => [Math.floor(random() * 20_000), Math.fround(random())] as const);
    const binner = new LdDecayBinner(width);
    for (const [distance, value] of pairs) binner.add(distance, value);
    const byBin = new Map<number, number[]>();
    for (const [distance, value] of pairs) {
      const bin = Math.floor(distance / width);
      byBin.set(bin, [...(byBin.get(bin) ?? []), value]);
    }
    const expected = [...byBin.keys()].sort((a, b) => a - b).map((bin) => {
      const values = [...(byBin.get(bin) ?? [])].sort((a, b) => a - b);
      const n = values.length;
      return {
        startBp: bin * width, endBp: (bin + 1) * width, numPairs: n,
        mean: values.reduce((sum, v) => sum + v, 0) / n,
        median: n % 2 === 1 ? values[(n - 1) / 2] : (values[n / 2 - 1] + values[n / 2]) / 2,
      };
    });
    const bins = binner.bins();
    expect(bins.map(({ startBp, endBp, numPairs, median }) => ({ startBp, endBp, numPairs, median })))
      .toEqual(expected.map(({ startBp, endBp, numPairs, median }) => ({ startBp, endBp, numPairs, median })));
    bins.forEach((bin, b) => expect(bin.mean).toBeCloseTo(expected[b].mean, 12));
  });
});
