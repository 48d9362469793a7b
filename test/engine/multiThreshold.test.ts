// CoMet's per-entry thresholds (core/thresholds.ts) against a naive restatement of the rules, 2-way and
// 3-way, through the whole engine with a decomposition; the thresholds are set at quantiles of the values
// so that every rule, the LL+HH / LLL+HHH one included, decides some entries.
import { describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import type { Threshold } from '../../src/core/thresholds.js';
import { runJob } from '../../src/engine/index.js';
import { naiveMetrics } from '../helpers/naiveMetrics.js';
import { makeJob } from './jobFixtures.js';

const f32 = Math.fround;

/** The value below which a fraction `q` of `values` lie. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Naive 2-way rule: by entry name. */
function keep2(t: Extract<Threshold, { kind: 'multi2' }>, stats: { byPairRule: number }) {
  return (v: readonly number[]): boolean[] => {
    const [ll, lh, hl, hh] = v.map(f32);
    const pairRule = ll > 0 && hh > 0 && f32(ll + hh) > t.tLLHH;
    if (pairRule && !(ll > t.tLL) && !(hh > t.tHH)) stats.byPairRule++;
    return [ll > t.tLL || pairRule, lh > t.tLH, hl > t.tLH, hh > t.tHH || pairRule];
  };
}

/** Naive 3-way rule: threshold by number of H bits; LLL and HHH also by their sum. */
function keep3(t: Extract<Threshold, { kind: 'multi3' }>, stats: { byPairRule: number }) {
  return (v: readonly number[]): boolean[] => {
    const w = v.map(f32);
    const sumRule = w[0] > 0 && w[7] > 0 && f32(w[0] + w[7]) > t.tLLLHHH;
    if (sumRule && !(w[0] > t.tLLL) && !(w[7] > t.tHHH)) stats.byPairRule++;
    return w.map((value, e) => {
      const numH = [0, 1, 1, 2, 1, 2, 2, 3][e];
      const own = value > [t.tLLL, t.tLLH, t.tLHH, t.tHHH][numH];
      return own || ((e === 0 || e === 7) && sumRule);
    });
  };
}

describe('per-entry thresholds', () => {
  for (const sparse of [false, true]) {
    it(`2-way CCC ${sparse ? 'sparse' : 'dense'} equals the naive rule`, async () => {
      const numVector = 30, numField = 90;
      const code = (v: number, f: number): number => randomProblemCode(v, f, numField);
      const spec = makeJob({ numVector, numField, sparse }).metricSpec;
      const all = naiveMetrics(spec, numVector, numField, code, { keepValues: true });
      const byEntry = (entry: string): number[] => [...all.values].filter(([key]) => key.endsWith(`,${entry}`)).map(([, v]) => v);
      const t = {
        kind: 'multi2', tLL: quantile(byEntry('00'), 0.8), tLH: quantile([...byEntry('01'), ...byEntry('10')], 0.7),
        tHH: quantile(byEntry('11'), 0.8), tLLHH: quantile(byEntry('00'), 0.5) + quantile(byEntry('11'), 0.5),
      } as const;
      const stats = { byPairRule: 0 };
      const naive = naiveMetrics(spec, numVector, numField, code, { tupleKeep: keep2(t, stats) });
      expect(stats.byPairRule).toBeGreaterThan(0);
      expect(naive.entries).toBeLessThan(all.entries);
      for (const backend of ['ref', 'cpu'] as const) {
        const result = await runJob(makeJob({
          numVector, numField, sparse, backend, thresholdSpec: t, decomposition: { numProcVector: 3, numProcField: 2 },
        }));
        expect(result.checksum).toBe(naive.checksum);
        expect(result.entries).toBe(naive.entries);
      }
    });
  }

  it('3-way CCC equals the naive rule', async () => {
    const numVector = 14, numField = 70;
    const code = (v: number, f: number): number => randomProblemCode(v, f, numField);
    const spec = makeJob({ numVector, numField, numWay: 3 }).metricSpec;
    const all = naiveMetrics(spec, numVector, numField, code, { keepValues: true });
    const withOnes = (n: number): number[] => [...all.values]
      .filter(([key]) => [...key.split(',')[3]].filter((bit) => bit === '1').length === n).map(([, v]) => v);
    const t = {
      kind: 'multi3', tLLL: quantile(withOnes(0), 0.8), tLLH: quantile(withOnes(1), 0.7), tLHH: quantile(withOnes(2), 0.7),
      tHHH: quantile(withOnes(3), 0.8), tLLLHHH: quantile(withOnes(0), 0.5) + quantile(withOnes(3), 0.5),
    } as const;
    const stats = { byPairRule: 0 };
    const naive = naiveMetrics(spec, numVector, numField, code, { tupleKeep: keep3(t, stats) });
    expect(stats.byPairRule).toBeGreaterThan(0);
    const result = await runJob(makeJob({ numVector, numField, numWay: 3, thresholdSpec: t, decomposition: { numProcVector: 2 } }));
    expect(result.checksum).toBe(naive.checksum);
    expect(result.entries).toBe(naive.entries);
  });
});
