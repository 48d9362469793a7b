// 2-way runs with finalize on the GPU against `--backend cpu`: checksum, entries, zeros and output files byte for
// byte, on ragged sizes, dense and sparse, CCC, DUO and r² (SNPs without variance: NaN values), thresholds,
// in-process ranks; and the runs that must finalize on the host (host placement, field slabs, r² with a per-entry
// threshold, exotic constants). SPEC §5 through the device path: webgpuChecksums.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobSpec } from '../../src/engine/index.js';
import { runJob } from '../../src/engine/index.js';
import { packFieldValues, readMetricsFileRecords, writePackedVectorFile } from '../../src/io/index.js';
import { ldProblemCodes } from '../helpers/ldProblem.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, type JobOptions } from './jobFixtures.js';

const gate = await webgpuGate();

const pairsOf = (numVector: number): number => (numVector * (numVector - 1)) / 2;

const MULTI2 = { kind: 'multi2', tLL: 0.55, tLH: 0.6, tHH: 0.7, tLLHH: 1.2 } as const;

const dir = mkdtempSync(join(tmpdir(), 'snptally-devfin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A prepared file of linked SNPs (test/helpers/ldProblem.ts) with the corner cases of r²: monomorphic SNPs, an
 * all-missing one, one without variance on its neighbour's samples: pairs whose r² is NaN.
 */
function ldSource(numVector: number, numField: number, missingRate: number): JobOptions['source'] {
  const codes = ldProblemCodes(numVector, numField, 31, missingRate);
  const path = join(dir, `ld-${numVector}-${numField}-${missingRate}.bin`);
  writePackedVectorFile(path, packFieldValues(numVector, numField, (v, f) => codes[v * numField + f]), numVector, numField);
  return { kind: 'file', path };
}

const CPU_COMPARISONS: readonly { readonly name: string; readonly job: JobOptions }[] = [
  { name: 'CCC dense nv 67 nf 65', job: { numVector: 67, numField: 65 } },
  { name: 'CCC sparse nv 70 nf 333, threshold 0.4', job: { sparse: true, numVector: 70, numField: 333, threshold: 0.4 } },
  { name: 'CCC dense nv 61 nf 130, multi2', job: { numVector: 61, numField: 130, thresholdSpec: MULTI2 } },
  { name: 'DUO dense nv 53 nf 129, threshold 0', job: { metric: 'duo', numVector: 53, numField: 129, threshold: 0 } },
  { name: 'DUO dense nv 44 nf 45, npv 2, 2 phases, threshold 0.5', job: { metric: 'duo', numVector: 44, numField: 45, threshold: 0.5, decomposition: { numProcVector: 2, numPhase: 2 } } },
  { name: 'r2 dense nv 45 nf 97', job: { metric: 'r2', numVector: 45, numField: 97 } },
  { name: 'r2 sparse nv 61 nf 150, npv 2, threshold 0.02', job: { metric: 'r2', sparse: true, numVector: 61, numField: 150, threshold: 0.02, decomposition: { numProcVector: 2 } } },
];

async function runBoth(job: JobOptions): Promise<{ cpu: Awaited<ReturnType<typeof runJob>>; gpu: Awaited<ReturnType<typeof runJob>> }> {
  const cpu = await runJob(makeJob({ ...job, backend: 'cpu' }));
  const gpu = await runJob(makeJob({ ...job, backend: 'webgpu' }));
  return { cpu, gpu };
}

describe.skipIf(!gate.available)(`2-way finalize on the GPU (${gate.description})`, () => {
  for (const c of CPU_COMPARISONS) {
    it(`equals cpu: ${c.name}`, async () => {
      const { cpu, gpu } = await runBoth(c.job);
      expect({ checksum: gpu.checksum, entries: gpu.entries, zeros: gpu.zeros }).toEqual({ checksum: cpu.checksum, entries: cpu.entries, zeros: cpu.zeros });
      expect(gpu.deviceFinalizedPairs).toBe(pairsOf(c.job.numVector));
      expect(cpu.deviceFinalizedPairs).toBe(0);
    });
  }

  it.each([
    { name: 'CCC sparse nv 71 nf 100, threshold 0.5', job: { sparse: true, numVector: 71, numField: 100, threshold: 0.5 } },
    { name: 'DUO dense nv 40 nf 33, multi2', job: { metric: 'duo', numVector: 40, numField: 33, thresholdSpec: MULTI2 } },
    // A split half diagonal: the upper rank finalizes columns [h, n) of the lower block (a column range not at 0).
    { name: 'CCC sparse nv 57 nf 100, npv 2, split half diagonal, threshold 0.5', job: { sparse: true, numVector: 57, numField: 100, threshold: 0.5, decomposition: { numProcVector: 2, halfDiagonal: 'split' } } },
    // No threshold: every entry is a record (more than the first record buffer of 2^16 holds).
    { name: 'CCC dense nv 190 nf 40, no threshold', job: { numVector: 190, numField: 40 } },
    // More than one host panel (4 Mi pairs, 2048 rows a side): the device must cut the same panels.
    { name: 'CCC dense nv 3000 nf 24, threshold 0.6', job: { numVector: 3000, numField: 24, threshold: 0.6 } },
    // Sparse panels are 4 Mi pairs too (four term groups: 64 MiB of tallies a call on the host).
    { name: 'CCC sparse nv 2100 nf 24, threshold 0.6', job: { sparse: true, numVector: 2100, numField: 24, threshold: 0.6 } },
    // r²: one entry (1, 1) per pair; NaN pairs are records without a threshold (the float32 quiet NaN) and drop out with one.
    { name: 'r2 sparse LD nv 70 nf 203 (NaN pairs), no threshold', job: { metric: 'r2', sparse: true, numVector: 70, numField: 203, source: ldSource(70, 203, 0.06) }, nanRecords: true },
    { name: 'r2 dense LD nv 53 nf 101 (NaN pairs), npv 2, threshold 0.3', job: { metric: 'r2', numVector: 53, numField: 101, source: ldSource(53, 101, 0), threshold: 0.3, decomposition: { numProcVector: 2 } } },
    { name: 'r2 sparse LD nv 2100 nf 30, threshold 0.1 (several panels)', job: { metric: 'r2', sparse: true, numVector: 2100, numField: 30, source: ldSource(2100, 30, 0.05), threshold: 0.1 } },
  ] satisfies { name: string; job: JobOptions; nanRecords?: boolean }[])('writes the same files as cpu: $name', async ({ name, job, ...c }) => {
    const stub = (backend: string): string => join(dir, `${name.replace(/[^a-z0-9]/gi, '')}-${backend}`);
    const cpu = await runJob(makeJob({ ...job, backend: 'cpu', outputStub: stub('cpu') }));
    const gpu = await runJob(makeJob({ ...job, backend: 'webgpu', outputStub: stub('gpu') }));
    expect(gpu.deviceFinalizedPairs).toBe(pairsOf(job.numVector));
    expect(gpu.outputFiles.length).toBe(cpu.outputFiles.length);
    let totalBytes = 0;
    cpu.outputFiles.forEach((file, idx) => {
      const want = readFileSync(file);
      totalBytes += want.length;
      expect(readFileSync(gpu.outputFiles[idx]).equals(want)).toBe(true);
    });
    expect(totalBytes).toBe(cpu.entries * 12);
    if ('nanRecords' in c) {
      const nanRecords = gpu.outputFiles.flatMap((file) => [...readMetricsFileRecords(file, 2)]).filter((r) => Number.isNaN(r.value));
      expect(nanRecords.length).toBeGreaterThan(0);
    }
  });

  it.each([
    { name: '--finalize host', job: { numVector: 50, numField: 70, finalize: 'host' } },
    { name: 'field slabs (npf 2)', job: { numVector: 50, numField: 70, decomposition: { numProcField: 2 } } },
    // Per-entry thresholds apply to a whole 2 × 2 table; r² has one entry per pair.
    { name: 'r2 with a per-entry threshold', job: { metric: 'r2', sparse: true, numVector: 30, numField: 70, thresholdSpec: MULTI2 } },
  ] satisfies { name: string; job: JobOptions }[])('finalizes on the host for $name, with the cpu checksum', async ({ job }) => {
    const { cpu, gpu } = await runBoth(job);
    expect(gpu.checksum).toBe(cpu.checksum);
    expect(gpu.deviceFinalizedPairs).toBe(0);
  });

  it('finalizes on the host when constants leave the device library range', async () => {
    const job: JobSpec = makeJob({ numVector: 40, numField: 50, backend: 'webgpu' });
    const exotic: JobSpec = { ...job, metricSpec: { ...job.metricSpec, param: 1e-300 } };
    const gpu = await runJob(exotic);
    const cpu = await runJob({ ...exotic, backend: 'cpu' });
    expect(gpu.checksum).toBe(cpu.checksum);
    expect(gpu.deviceFinalizedPairs).toBe(0);
  });

  it('reports values outside [0, 16) as the cpu does (the device hands such panels to the host)', async () => {
    const job: JobSpec = makeJob({ numVector: 30, numField: 40, backend: 'webgpu' });
    const bad: JobSpec = { ...job, metricSpec: { ...job.metricSpec, param: -40 } };
    const cpuError = await runJob({ ...bad, backend: 'cpu' }).then(() => null, (e: Error) => e.message);
    expect(cpuError).toMatch(/checksum needs metric values in \[0, 16\)/);
    await expect(runJob(bad)).rejects.toThrow(cpuError ?? 'unreachable');
  });
});
