// 3-way runs with finalize on the GPU against `--backend cpu` (and `ref`): checksum, entries, zeros and output
// files byte for byte, on ragged sizes, dense and sparse, CCC and DUO, single and multi3 thresholds, in-process
// ranks with stages; SPEC §5's 3-way references through the device path; and the runs that must finalize on
// the host (host placement, field slabs, --verify, exotic constants, values outside the checksum's range).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobSpec, RunResult } from '../../src/engine/index.js';
import { runJob } from '../../src/engine/index.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, SPEC_CASES, type JobOptions } from './jobFixtures.js';

const gate = await webgpuGate();

const triplesOf = (n: number): number => (n * (n - 1) * (n - 2)) / 6;

const MULTI3 = { kind: 'multi3', tLLL: 0.1, tLLH: 0.2, tLHH: 0.3, tHHH: 0.25, tLLLHHH: 0.35 } as const;

const CPU_COMPARISONS: readonly { readonly name: string; readonly job: JobOptions }[] = [
  { name: 'CCC dense nv 23 nf 65', job: { numWay: 3, numVector: 23, numField: 65 } },
  { name: 'CCC sparse nv 22 nf 77, threshold 0.4', job: { numWay: 3, sparse: true, numVector: 22, numField: 77, threshold: 0.4 } },
  { name: 'DUO dense nv 19 nf 45, multi3', job: { metric: 'duo', numWay: 3, numVector: 19, numField: 45, thresholdSpec: MULTI3 } },
  { name: 'DUO sparse nv 21 nf 33, threshold 0', job: { metric: 'duo', numWay: 3, sparse: true, numVector: 21, numField: 33, threshold: 0 } },
  { name: 'CCC sparse nv 26 nf 50, npv 3, 2 stages, multi3', job: { numWay: 3, sparse: true, numVector: 26, numField: 50, thresholdSpec: MULTI3, decomposition: { numProcVector: 3, numStage: 2 } } },
  { name: 'CCC dense nv 25 nf 40, npv 2, 3 stages, threshold 0.2', job: { numWay: 3, numVector: 25, numField: 40, threshold: 0.2, decomposition: { numProcVector: 2, numStage: 3 } } },
];

async function runBoth(job: JobOptions): Promise<{ cpu: RunResult; gpu: RunResult }> {
  const cpu = await runJob(makeJob({ ...job, backend: 'cpu' }));
  const gpu = await runJob(makeJob({ ...job, backend: 'webgpu' }));
  return { cpu, gpu };
}

const totals = (r: RunResult): { checksum: string; entries: number; zeros: number } => ({ checksum: r.checksum, entries: r.entries, zeros: r.zeros });

describe.skipIf(!gate.available)(`3-way finalize on the GPU (${gate.description})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'snptally-devfin3-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const c of SPEC_CASES.filter((s) => s.job.numWay === 3)) {
    it(`SPEC §5 on the device: ${c.name}`, async () => {
      const gpu = await runJob(makeJob({ ...c.job, backend: 'webgpu' }));
      expect(gpu.checksum).toBe(c.checksum);
      expect(gpu.deviceFinalizedTriples).toBe(triplesOf(c.job.numVector));
    });
  }

  for (const c of CPU_COMPARISONS) {
    it(`equals cpu: ${c.name}`, async () => {
      const { cpu, gpu } = await runBoth(c.job);
      expect(totals(gpu)).toEqual(totals(cpu));
      expect(cpu.entries).toBeGreaterThan(0);
      expect(gpu.deviceFinalizedTriples).toBe(triplesOf(c.job.numVector));
      expect(cpu.deviceFinalizedTriples).toBe(0);
    });
  }

  it('equals ref: CCC sparse nv 20 nf 64, npv 2', async () => {
    const job: JobOptions = { numWay: 3, sparse: true, numVector: 20, numField: 64, decomposition: { numProcVector: 2 } };
    const ref = await runJob(makeJob({ ...job, backend: 'ref' }));
    const gpu = await runJob(makeJob({ ...job, backend: 'webgpu' }));
    expect(totals(gpu)).toEqual(totals(ref));
    expect(gpu.deviceFinalizedTriples).toBe(triplesOf(20));
  });

  it.each([
    { name: 'CCC sparse nv 24 nf 60, npv 2, multi3', job: { numWay: 3, sparse: true, numVector: 24, numField: 60, thresholdSpec: MULTI3, decomposition: { numProcVector: 2 } } },
    { name: 'DUO dense nv 20 nf 35, no threshold', job: { metric: 'duo', numWay: 3, numVector: 20, numField: 35 } },
    { name: 'CCC dense nv 27 nf 50, npv 3, 2 stages, threshold 0.3', job: { numWay: 3, numVector: 27, numField: 50, threshold: 0.3, decomposition: { numProcVector: 3, numStage: 2 } } },
    // 1.3 M triples: device calls with records grow from 1 Mi triples (recordedTriplesPerCall.ts), so several calls.
    { name: 'CCC dense nv 200 nf 40, threshold 0.3', job: { numWay: 3, numVector: 200, numField: 40, threshold: 0.3 } },
  ] satisfies { name: string; job: JobOptions }[])('writes the same files as cpu: $name', async ({ name, job }) => {
    const stub = (backend: string): string => join(dir, `${name.replace(/[^a-z0-9]/gi, '')}-${backend}`);
    const cpu = await runJob(makeJob({ ...job, backend: 'cpu', outputStub: stub('cpu') }));
    const gpu = await runJob(makeJob({ ...job, backend: 'webgpu', outputStub: stub('gpu') }));
    expect(gpu.deviceFinalizedTriples).toBe(triplesOf(job.numVector));
    expect(gpu.outputFiles.length).toBe(cpu.outputFiles.length);
    let totalBytes = 0;
    cpu.outputFiles.forEach((file, idx) => {
      const want = readFileSync(file);
      totalBytes += want.length;
      expect(readFileSync(gpu.outputFiles[idx]).equals(want)).toBe(true);
    });
    // 3 coordinates and a value per record.
    expect(totalBytes).toBe(cpu.entries * 16);
    expect(totalBytes).toBeGreaterThan(0);
  });

  it.each([
    { name: '--finalize host', job: { numWay: 3, numVector: 18, numField: 40, finalize: 'host' } },
    { name: 'field slabs (npf 2)', job: { numWay: 3, sparse: true, numVector: 18, numField: 70, decomposition: { numProcField: 2 } } },
    { name: '--verify (analytic)', job: { numWay: 3, numVector: 12, numField: 40, source: { kind: 'analytic' }, verify: true } },
  ] satisfies { name: string; job: JobOptions }[])('finalizes on the host for $name, with the cpu checksum', async ({ job }) => {
    const { cpu, gpu } = await runBoth(job);
    expect(totals(gpu)).toEqual(totals(cpu));
    expect(gpu.deviceFinalizedTriples).toBe(0);
  });

  it('finalizes on the host when constants leave the device library range', async () => {
    const job: JobSpec = makeJob({ numWay: 3, numVector: 15, numField: 50, backend: 'webgpu' });
    const exotic: JobSpec = { ...job, metricSpec: { ...job.metricSpec, param: 1e-300 } };
    const gpu = await runJob(exotic);
    const cpu = await runJob({ ...exotic, backend: 'cpu' });
    expect(gpu.checksum).toBe(cpu.checksum);
    expect(gpu.deviceFinalizedTriples).toBe(0);
  });

  it('reports values outside [0, 16) as the cpu does (the device hands such slices to the host)', async () => {
    const job: JobSpec = makeJob({ numWay: 3, numVector: 12, numField: 40, backend: 'webgpu' });
    const bad: JobSpec = { ...job, metricSpec: { ...job.metricSpec, param: -40 } };
    const cpuError = await runJob({ ...bad, backend: 'cpu' }).then(() => null, (e: Error) => e.message);
    expect(cpuError).toMatch(/checksum needs metric values in \[0, 16\)/);
    await expect(runJob(bad)).rejects.toThrow(cpuError ?? 'unreachable');
  });
});
