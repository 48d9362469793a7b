// End to end on the WebGPU backend: every SPEC §5 checksum, decomposed runs, thresholds, sparse and
// 3-way problems with ragged sizes, each equal to the CPU backend's checksum; `--backend auto`. 2-way runs without
// field slabs must have finalized every pair on the GPU (3-way CCC and DUO: every triple).
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/engine/index.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, SPEC_CASES, type JobOptions } from './jobFixtures.js';

const gate = await webgpuGate();

/** Pairs the GPU must have finalized: all of a 2-way run without field slabs, none otherwise. */
function expectedDevicePairs(job: JobOptions): number {
  const twoWay = (job.numWay ?? 2) === 2 && (job.decomposition?.numProcField ?? 1) === 1;
  return twoWay ? (job.numVector * (job.numVector - 1)) / 2 : 0;
}

/** Triples the GPU must have finalized: all of a 3-way ccc/duo run without field slabs, none otherwise. */
function expectedDeviceTriples(job: JobOptions): number {
  const threeWay = job.numWay === 3 && job.metric !== 'r2' && (job.decomposition?.numProcField ?? 1) === 1;
  return threeWay ? (job.numVector * (job.numVector - 1) * (job.numVector - 2)) / 6 : 0;
}

/** Jobs whose webgpu checksum must equal the cpu one: ragged sizes, thresholds, decompositions. */
const CPU_COMPARISONS: readonly { readonly name: string; readonly job: JobOptions }[] = [
  { name: 'CCC 2-way sparse nv 70 nf 333, threshold 0.4', job: { sparse: true, numVector: 70, numField: 333, threshold: 0.4 } },
  { name: 'DUO 2-way dense nv 67 nf 65, npv 3 npf 2, 2 phases', job: { metric: 'duo', numVector: 67, numField: 65, decomposition: { numProcVector: 3, numProcField: 2, numPhase: 2 } } },
  { name: 'CCC 2-way dense nv 90 nf 129, npv 2 npr 2, threshold 0', job: { numVector: 90, numField: 129, threshold: 0, decomposition: { numProcVector: 2, numProcRepl: 2 } } },
  { name: 'DUO 2-way dense nv 77 nf 100, npv 4, split half diagonal, 2 phases', job: { metric: 'duo', numVector: 77, numField: 100, decomposition: { numProcVector: 4, numPhase: 2, halfDiagonal: 'split' } } },
  { name: 'CCC 3-way sparse nv 22 nf 77, npv 2, 2 stages', job: { numWay: 3, sparse: true, numVector: 22, numField: 77, decomposition: { numProcVector: 2, numStage: 2 } } },
  { name: 'CCC 3-way dense nv 26 nf 150, npf 2, threshold 0.8', job: { numWay: 3, numVector: 26, numField: 150, threshold: 0.8, decomposition: { numProcField: 2 } } },
  { name: 'DUO 3-way sparse nv 19 nf 45', job: { metric: 'duo', numWay: 3, sparse: true, numVector: 19, numField: 45 } },
  { name: 'CCC 3-way dense nv 40 nf 130, npv 3, 3 stages', job: { numWay: 3, numVector: 40, numField: 130, decomposition: { numProcVector: 3, numStage: 3 } } },
  { name: 'CCC 3-way sparse nv 33 nf 257, npv 2 npf 2, 2 stages, threshold 0.3', job: { numWay: 3, sparse: true, numVector: 33, numField: 257, threshold: 0.3, decomposition: { numProcVector: 2, numProcField: 2, numStage: 2 } } },
  { name: 'DUO 3-way dense nv 29 nf 70, npv 3', job: { metric: 'duo', numWay: 3, numVector: 29, numField: 70, decomposition: { numProcVector: 3 } } },
  { name: 'r2 sparse nv 41 nf 200, npv 2', job: { metric: 'r2', sparse: true, numVector: 41, numField: 200, decomposition: { numProcVector: 2 } } },
  { name: 'r2 dense nv 33 nf 97', job: { metric: 'r2', numVector: 33, numField: 97 } },
];

describe.skipIf(!gate.available)(`webgpu backend end to end on ${gate.description}`, () => {
  for (const c of SPEC_CASES) {
    it(`SPEC §5: ${c.name}`, async () => {
      const result = await runJob(makeJob({ ...c.job, backend: 'webgpu' }));
      expect(result.checksum).toBe(c.checksum);
      expect(result.backend).toBe('webgpu');
      expect(result.deviceFinalizedPairs).toBe(expectedDevicePairs(c.job));
      expect(result.deviceFinalizedTriples).toBe(expectedDeviceTriples(c.job));
    });
  }

  for (const c of CPU_COMPARISONS) {
    it(`equals cpu: ${c.name}`, async () => {
      const cpu = await runJob(makeJob({ ...c.job, backend: 'cpu' }));
      const gpu = await runJob(makeJob({ ...c.job, backend: 'webgpu' }));
      expect({ checksum: gpu.checksum, entries: gpu.entries, zeros: gpu.zeros }).toEqual({ checksum: cpu.checksum, entries: cpu.entries, zeros: cpu.zeros });
      expect(gpu.deviceFinalizedPairs).toBe(expectedDevicePairs(c.job));
      expect(gpu.deviceFinalizedTriples).toBe(expectedDeviceTriples(c.job));
    });
  }

  /**
   * SPEC §5's 3-way values do not depend on the decomposition: mGEMM3 batches of every unit kind (parts 1–3).
   * (The nv 4 problem has too few vectors for blocks of 3.)
   */
  const SPEC_3WAY = SPEC_CASES.filter((c) => c.job.numWay === 3 && c.job.numVector >= 18);
  for (const c of SPEC_3WAY) {
    for (const decomposition of [{ numProcVector: 2, numStage: 2 }, { numProcVector: 3, numStage: 3, numProcField: 2 }]) {
      it(`SPEC §5: ${c.name}, npv ${decomposition.numProcVector}, ${decomposition.numStage} stages${decomposition.numProcField ? `, npf ${decomposition.numProcField}` : ''}`, async () => {
        const result = await runJob(makeJob({ ...c.job, backend: 'webgpu', decomposition }));
        expect(result.checksum).toBe(c.checksum);
      });
    }
  }

  it('CCC 3-way analytic nv 30 nf 64, npv 3: every value as expected', async () => {
    const result = await runJob(makeJob({ numWay: 3, numVector: 30, numField: 64, source: { kind: 'analytic' }, backend: 'webgpu', verify: true, decomposition: { numProcVector: 3 } }));
    expect(result.verifiedValues).toBe(8 * ((30 * 29 * 28) / 6));
  });

  it(`--backend auto picks ${gate.isSoftware ? 'cpu over a software adapter' : 'webgpu on a hardware adapter'} and says so`, async () => {
    const c = SPEC_CASES[2];
    const result = await runJob(makeJob({ ...c.job, backend: 'auto' }));
    expect(result.backend).toBe(gate.isSoftware ? 'cpu' : 'webgpu');
    expect(result.backendNote).toMatch(gate.isSoftware
      ? /^--backend auto: only a software WebGPU adapter \(.+\), using cpu$/
      : /^--backend auto: using webgpu on /);
    expect(result.checksum).toBe(c.checksum);
  });
});
