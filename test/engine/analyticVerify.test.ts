// --verify: every value of analytic problems equals its O(8) expectation, on every metric and way.
import { describe, expect, it } from 'vitest';
import { AnalyticVerifier } from '../../src/analyses/comet/analyticVerifier.js';
import { cometSettings } from '../../src/analyses/comet/cometSettings.js';
import { runJob } from '../../src/engine/index.js';
import { makeJob } from './jobFixtures.js';

describe('analytic verification', () => {
  const sizes = [
    { numWay: 2, numVector: 40, numField: 1000 }, { numWay: 2, numVector: 7, numField: 5 },
    { numWay: 3, numVector: 18, numField: 300 }, { numWay: 3, numVector: 5, numField: 9 },
  ] as const;
  for (const metric of ['ccc', 'duo'] as const) for (const sparse of [false, true]) for (const s of sizes) {
    it(`${metric} ${s.numWay}-way ${sparse ? 'sparse' : 'dense'} nv ${s.numVector} nf ${s.numField}`, async () => {
      const job = makeJob({ ...s, metric, sparse, source: { kind: 'analytic' }, verify: true, decomposition: { numProcField: 2 } });
      const result = await runJob(job);
      expect(result.verifiedValues).toBe(result.entries);
      const tuples = s.numWay === 2 ? (s.numVector * (s.numVector - 1)) / 2 : (s.numVector * (s.numVector - 1) * (s.numVector - 2)) / 6;
      expect(result.entries).toBe(tuples * 2 ** s.numWay);
    });
  }

  it('rejects a value that differs from the expectation', () => {
    const spec = makeJob({ numVector: 10, numField: 50 }).metricSpec;
    const verifier = new AnalyticVerifier(spec, cometSettings('ccc', { spec, numVector: 10, numField: 50 }).constants, 10, 50);
    const right = verifier.expected2(1, 1, 4, 0);
    expect(() => verifier.check2(1, 1, 4, 0, right)).not.toThrow();
    expect(() => verifier.check2(1, 1, 4, 0, right * (1 + 2 ** -52))).toThrow(/expected/);
  });

  it('needs the analytic problem', async () => {
    await expect(runJob(makeJob({ numVector: 10, numField: 50, verify: true }))).rejects.toThrow(/analytic/);
  });
});
