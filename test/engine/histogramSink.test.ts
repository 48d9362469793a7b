// The host histogram sink on its own: rows counted as SPEC §9 says (against counts made here), counts past 2^53
// kept exact, the reduction limbs exact past 2^64 over several ranks, the self-check, the file's text against
// the C library's printf, and the layouts the analyses declare.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkHistogramLayout, type HistogramLayout } from '../../src/core/histogramLayout.js';
import { loadBuiltInAnalysis } from '../../src/analyses/index.js';
import {
  checkHistogramTotals, formatHistogramFile, HistogramCounter, histogramLimbs, totalsFromLimbs,
} from '../../src/engine/finalize/histogramSink.js';
import { seededRandom } from '../mgemm/planeFixtures.js';

const LAYOUT_2: HistogramLayout = {
  numBuckets: 4500, columnNames: ['LL', 'LH', 'HH', 'LL+HH'], entryColumns: [0, 1, 1, 2], sumColumns: [{ column: 3, entryBits: [0, 3] }],
};

function bucketOf(x: number, numBuckets: number): number {
  return Math.min(numBuckets - 1, Math.max(0, Math.trunc(x * 1000)));
}

describe('HistogramCounter', () => {
  it('counts rows of 2 × 2 tables as SPEC §9 says, NaN apart', () => {
    const random = seededRandom(3);
    const counter = new HistogramCounter(LAYOUT_2);
    const want = Array.from({ length: 4 }, () => new Array<number>(4500).fill(0));
    for (let row = 0; row < 50; row++) {
      const numCols = 1 + (row % 7);
      const values = Float64Array.from({ length: 4 * numCols }, () => (random() < 0.05 ? -random() : random() * 5));
      counter.addTuples(values, numCols, [0, 1, 2, 3]);
      for (let c = 0; c < numCols; c++) {
        const v = values.subarray(4 * c, 4 * c + 4);
        want[0][bucketOf(v[0], 4500)]++;
        want[1][bucketOf(v[1], 4500)]++;
        want[1][bucketOf(v[2], 4500)]++;
        want[2][bucketOf(v[3], 4500)]++;
        want[3][bucketOf(v[0] + v[3], 4500)]++;
      }
    }
    counter.addTuples(Float64Array.of(NaN, 0.1), 2, [3]);
    want[2][100]++;
    const totals = counter.totals();
    expect(totals.counts.map(Number)).toEqual(want.flat());
    expect(totals.numUndefined).toBe(1n);
  });

  it('one-entry rows count only their entry; sum columns only with both entries', () => {
    const counter = new HistogramCounter(LAYOUT_2);
    counter.addTuples(Float64Array.of(0.25, 1.5), 2, [1]);
    const { counts } = counter.totals();
    expect(counts[4500 + 250]).toBe(1n);
    expect(counts[4500 + 1500]).toBe(1n);
    expect(counts.reduce((a, b) => a + b, 0n)).toBe(2n);
  });

  it('stays exact past 2^53 counts (parts moved into BigInts before doubles round)', () => {
    const counter = new HistogramCounter(LAYOUT_2);
    const part = new Float64Array(4 * 4500);
    part[7] = 2 ** 52 + 1;
    part[4500 + 9] = 3;
    for (let k = 0; k < 5; k++) counter.add({ counts: part, numUndefined: 2 ** 52 });
    counter.addTuples(Float64Array.of(0.007, 0, 0, 0), 1, [0, 1, 2, 3]);
    const totals = counter.totals();
    expect(totals.counts[7]).toBe(5n * (2n ** 52n + 1n) + 1n);
    expect(totals.counts[4500 + 9]).toBe(15n);
    expect(totals.numUndefined).toBe(5n * 2n ** 52n);
    expect(() => counter.take()).toThrow('reached 2^53');
  });

  it('refuses a part whose own counts are not exact in doubles', () => {
    const counter = new HistogramCounter(LAYOUT_2);
    const part = new Float64Array(4 * 4500);
    part[0] = 2 ** 53;
    expect(() => counter.add({ counts: part, numUndefined: 0 })).toThrow(RangeError);
  });

  it('take() hands over the counts since the last take', () => {
    const counter = new HistogramCounter(LAYOUT_2);
    counter.addTuples(Float64Array.of(1, 2, 3, 4), 1, [0, 1, 2, 3]);
    expect(counter.take().counts.reduce((a, b) => a + b, 0)).toBe(5);
    expect(counter.take().counts.reduce((a, b) => a + b, 0)).toBe(0);
  });
});

describe('reduction over ranks', () => {
  it('sums limbs of counts past 2^64 exactly over three ranks', () => {
    const ranks = [2n ** 64n + 12345n, 2n ** 63n - 1n, 2n ** 90n + 7n].map((big, r) => ({
      counts: [big, BigInt(r), 0n], numUndefined: BigInt(r) * 2n ** 40n,
    }));
    const summed = new Float64Array(histogramLimbs(ranks[0]).length);
    for (const totals of ranks) histogramLimbs(totals).forEach((limb, k) => { summed[k] += limb; });
    const total = totalsFromLimbs(summed);
    expect(total.counts).toEqual([2n ** 64n + 12345n + 2n ** 63n - 1n + 2n ** 90n + 7n, 3n, 0n]);
    expect(total.numUndefined).toBe(3n * 2n ** 40n);
  });

  it('refuses a count beyond the limbs', () => {
    expect(() => histogramLimbs({ counts: [2n ** 96n], numUndefined: 0n })).toThrow(RangeError);
  });
});

describe('self-check and file', () => {
  it('the self-check counts every column but sums, plus undefined values', () => {
    const counts = new Array<bigint>(4 * 4500).fill(0n);
    counts[3] = 10n;
    counts[4500 + 3] = 20n;
    counts[3 * 4500] = 99n;
    checkHistogramTotals(LAYOUT_2, { counts, numUndefined: 10n }, 10);
    expect(() => checkHistogramTotals(LAYOUT_2, { counts, numUndefined: 0n }, 10)).toThrow('self-check');
  });

  it('writes SPEC §9 text: header, printf("%.3f") labels, integer counts', () => {
    const counts = new Array<bigint>(4 * 4500).fill(0n);
    counts[0] = 2n ** 70n;
    counts[4499 + 3 * 4500] = 5n;
    const lines = formatHistogramFile(LAYOUT_2, counts).split('\n');
    expect(lines[0]).toBe('min\tLL\tLH\tHH\tLL+HH');
    expect(lines[1]).toBe(`0.000\t${2n ** 70n}\t0\t0\t0`);
    expect(lines[4500]).toBe('4.499\t0\t0\t0\t5');
    expect(lines.length).toBe(4502);
    expect(lines[4501]).toBe('');
    // printf("%.3f", b/1000.0) of C, through the coreutils printf on the same doubles' shortest decimals.
    const want = execFileSync('printf', ['%.3f\\n', ...Array.from({ length: 4500 }, (_, b) => String(b / 1000))], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(lines.slice(1, 4501).map((line) => line.split('\t')[0])).toEqual(want);
  });
});

describe('the analyses\' layouts', () => {
  const settings = (metric: string, numWay: 2 | 3, multiplier: number) => ({
    spec: { metric, numWay, sparse: false, param: 2 / 3, multiplier }, numVector: 10, numField: 10,
  });
  it('CCC and DUO declare SPEC §9\'s columns and (int)(1000·mult) buckets; r² one column of 1000', async () => {
    const ccc2 = (await loadBuiltInAnalysis('ccc')).forRun(settings('ccc', 2, 4.5)).histogramLayout?.();
    expect(ccc2).toEqual(LAYOUT_2);
    const duo3 = (await loadBuiltInAnalysis('duo')).forRun(settings('duo', 3, 4)).histogramLayout?.();
    expect(duo3?.numBuckets).toBe(4000);
    expect(duo3?.columnNames).toEqual(['LLL', 'LLH', 'LHH', 'HHH', 'LLL+HHH']);
    expect(duo3?.entryColumns).toEqual([0, 1, 1, 2, 1, 2, 2, 3]);
    expect(duo3?.sumColumns).toEqual([{ column: 4, entryBits: [0, 7] }]);
    const r2 = (await loadBuiltInAnalysis('r2')).forRun(settings('r2', 2, 1)).histogramLayout?.();
    expect(r2).toEqual({ numBuckets: 1000, columnNames: ['R2'], entryColumns: [-1, -1, -1, 0], sumColumns: [] });
    for (const layout of [ccc2, duo3, r2]) if (layout !== undefined) checkHistogramLayout(layout, layout.entryColumns.length);
    for (const name of ['ccc', 'duo', 'r2']) expect((await loadBuiltInAnalysis(name)).results).toContain('histogram');
  });

  it('inconsistent layouts are refused', () => {
    expect(() => checkHistogramLayout({ ...LAYOUT_2, entryColumns: [0, 1, 1, 5] }, 4)).toThrow('entry columns');
    expect(() => checkHistogramLayout({ ...LAYOUT_2, sumColumns: [{ column: 2, entryBits: [0, 3] }] }, 4)).toThrow('shares');
    expect(() => checkHistogramLayout({ ...LAYOUT_2, columnNames: [...LAYOUT_2.columnNames, 'X'] }, 4)).toThrow('counts nothing');
  });
});
