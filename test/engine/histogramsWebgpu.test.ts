// SPEC §9 histograms counted on the GPU (device finalize: 2-way value programs, 3-way finalize) against the naive
// reference, CCC and DUO, 2-way and 3-way, dense and sparse, under npv, npr, phases, stages, thresholds and output
// records; a run with --histograms finalizes every tuple on the device (no fallback to the host). r²'s one-column
// histogram equals the CPU run's and the naive r² bucketed. On lavapipe in CI.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { runJob, type DecompositionSpec, type JobSpec } from '../../src/engine/index.js';
import { histogramFileText, naiveHistogramFile } from '../helpers/naiveHistogram.js';
import { naiveR2 } from '../helpers/naiveR2.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, type JobOptions } from './jobFixtures.js';

const gate = await webgpuGate();
const dir = mkdtempSync(join(tmpdir(), 'snptally-histograms-gpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileIdx = 0;
function histogramJob(o: JobOptions): JobSpec {
  return { ...makeJob(o), histogramPath: join(dir, `h${fileIdx++}.tsv`) };
}

interface Case {
  readonly name: string;
  readonly job: JobOptions;
}

const CASES: readonly Case[] = [
  { name: 'CCC 2-way dense nv 31 nf 130', job: { numVector: 31, numField: 130 } },
  { name: 'CCC 2-way sparse nv 29 nf 77, npv 3, 2 phases, threshold 0.6', job: { sparse: true, numVector: 29, numField: 77, threshold: 0.6, decomposition: { numProcVector: 3, numPhase: 2 } } },
  { name: 'DUO 2-way dense nv 25 nf 65, npv 2 npr 2, records', job: { metric: 'duo', numVector: 25, numField: 65, decomposition: { numProcVector: 2, numProcRepl: 2 } } },
  { name: 'DUO 2-way sparse nv 27 nf 100, threshold 0.3, records', job: { metric: 'duo', sparse: true, numVector: 27, numField: 100, threshold: 0.3 } },
  { name: 'CCC 3-way dense nv 14 nf 97, threshold 0.9', job: { numWay: 3, numVector: 14, numField: 97, threshold: 0.9 } },
  { name: 'CCC 3-way sparse nv 15 nf 45, npv 2, 2 stages, records', job: { numWay: 3, sparse: true, numVector: 15, numField: 45, decomposition: { numProcVector: 2, numStage: 2 } } },
  { name: 'DUO 3-way sparse nv 12 nf 31, npv 3', job: { metric: 'duo', numWay: 3, sparse: true, numVector: 12, numField: 31, decomposition: { numProcVector: 3 } } },
  { name: 'DUO 3-way dense nv 13 nf 200, threshold 0.5, records', job: { metric: 'duo', numWay: 3, numVector: 13, numField: 200, threshold: 0.5 } },
];

function tuplesOf(job: JobOptions): number {
  const n = job.numVector;
  return (job.numWay ?? 2) === 2 ? (n * (n - 1)) / 2 : (n * (n - 1) * (n - 2)) / 6;
}

describe.skipIf(!gate.available)(`histograms on the GPU (${gate.description})`, () => {
  for (const c of CASES) {
    it(`${c.name}: equal the naive reference, every tuple finalized on the device`, async () => {
      const records = c.name.endsWith('records');
      const job = histogramJob({ ...c.job, backend: 'webgpu', outputStub: records ? join(dir, `run${fileIdx}`) : null });
      const result = await runJob(job);
      const { numVector, numField } = c.job;
      const naive = naiveHistogramFile(job.metricSpec, numVector, numField, (v, f) => randomProblemCode(v, f, numField));
      expect(readFileSync(job.histogramPath as string, 'utf8')).toBe(naive);
      const onDevice = (c.job.numWay ?? 2) === 2 ? result.deviceFinalizedPairs : result.deviceFinalizedTriples;
      expect(onDevice).toBe(tuplesOf(c.job));
    });
  }

  it('host finalize (--finalize host) and device finalize of the same run write the same file', async () => {
    const job: JobOptions = { numWay: 3, sparse: true, numVector: 16, numField: 60, threshold: 0.7, backend: 'webgpu' };
    const host = histogramJob({ ...job, finalize: 'host' });
    const device = histogramJob(job);
    const hostResult = await runJob(host);
    const deviceResult = await runJob(device);
    expect(hostResult.deviceFinalizedTriples).toBe(0);
    expect(deviceResult.deviceFinalizedTriples).toBe(tuplesOf(job));
    expect(readFileSync(device.histogramPath as string, 'utf8')).toBe(readFileSync(host.histogramPath as string, 'utf8'));
  });
});

/** r²'s one column over [0, 1] of a naive r², undefined values left out. */
function naiveR2File(numVector: number, numField: number, sparse: boolean): { text: string; numUndefined: number } {
  const column = new Array<number>(1000).fill(0);
  let numUndefined = 0;
  for (const value of naiveR2(numVector, numField, sparse, (v, f) => randomProblemCode(v, f, numField)).values.values()) {
    if (Number.isNaN(value)) numUndefined++;
    else column[Math.min(999, Math.max(0, Math.trunc(value * 1000)))]++;
  }
  return { text: histogramFileText(['R2'], [column]), numUndefined };
}

describe('r² histograms: one column R2 of 1000 buckets over [0, 1]', () => {
  const decompositions: Partial<DecompositionSpec>[] = [{}, { numProcVector: 2, numProcField: 2 }];
  const backends = gate.available ? (['cpu', 'webgpu'] as const) : (['cpu'] as const);
  for (const sparse of [false, true]) {
    for (const backend of backends) {
      for (const decomposition of decompositions) {
        it(`${sparse ? 'sparse' : 'dense'} nv 37 nf 90, ${backend} ${JSON.stringify(decomposition)}`, async () => {
          const job = histogramJob({ metric: 'r2', sparse, numVector: 37, numField: 90, backend, decomposition, threshold: 0.1 });
          const result = await runJob(job);
          const naive = naiveR2File(37, 90, sparse);
          expect(readFileSync(job.histogramPath as string, 'utf8')).toBe(naive.text);
          expect(result.histogram?.numUndefined).toBe(BigInt(naive.numUndefined));
          if (backend === 'webgpu' && decomposition.numProcField === undefined) expect(result.deviceFinalizedPairs).toBe((37 * 36) / 2);
        });
      }
    }
  }
});
