// The memory estimate's terms on small cases worked out by hand, and the job check's refusals.
import { beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { checkJob } from '../../src/engine/index.js';
import { availableHostMemory, checkMemory, checkThreadsAndRanks, MAX_IN_PROCESS_RANKS, maxThreads, type RunPlacement } from '../../src/engine/run/memoryCheck.js';
import { estimateMemory, maxReceivedBlocks, rankMemoryShape, type MemoryEstimate } from '../../src/engine/run/memoryEstimate.js';
import { ANALYSIS_NAMES, loadBuiltInAnalysis, type Analysis, type AnalysisRun } from '../../src/analyses/index.js';
import type { JobSpec } from '../../src/engine/run/jobSpec.js';
import { makeJob } from './jobFixtures.js';

const MiB = 2 ** 20;
const cpuPlacement = (ranks: number, threadsPerRank = 1): RunPlacement => ({
  ranksInProcess: ranks, processesOnHost: 1, threadsPerRank, gpuExpandsToU8: false, dawnLoaded: false, gpuIsSoftware: false, mpiLoaded: false,
});
const term = (estimate: MemoryEstimate, name: string): number => estimate.hostTerms.find((t) => t.name === name)?.bytes ?? 0;
const deviceTerm = (estimate: MemoryEstimate, name: string): number => estimate.deviceTerms.find((t) => t.name === name)?.bytes ?? 0;

// The estimate takes the job's analysis, loaded (on demand) before the tests.
const analyses = new Map<string, Analysis>();
beforeAll(async () => {
  for (const name of ANALYSIS_NAMES) analyses.set(name, await loadBuiltInAnalysis(name));
});
const runOf = (job: JobSpec): AnalysisRun => {
  const analysis = analyses.get(job.metricSpec.metric);
  if (analysis === undefined) throw new Error(`no built-in analysis ${job.metricSpec.metric}`);
  return analysis.forRun({ spec: job.metricSpec, numVector: job.numVector, numField: job.numField });
};
const shapeOf = (job: JobSpec): ReturnType<typeof rankMemoryShape> => rankMemoryShape(job, runOf(job));
const estimateOf = (job: JobSpec, placement: RunPlacement): MemoryEstimate => estimateMemory(job, placement, runOf(job));
const checkOf = (job: JobSpec, placement: RunPlacement): ReturnType<typeof checkMemory> => checkMemory(job, placement, runOf(job));

describe('memory estimate', () => {
  it('sizes a dense CCC 2-way block and its tallies', () => {
    // nv 100, nf 64: 2 planes of 2 words, padded to 4 words: 100 · 2 · 4 · 4 = 3200 bytes.
    const job = makeJob({ numVector: 100, numField: 64 });
    const shape = shapeOf(job);
    expect(shape).toMatchObject({ numVectorLocal: 100, numPlanes: 2, wordsPerPlane: 4, blockBytes: 3200, maxReceivedBlocks: 0, numGroups: 1 });
    // The diagonal block's panel is one 100 × 100 square (its upper half is used): 10 000 tallies.
    expect(shape.tuplesPerRank).toBe((100 * 100 + 100 * 100) / 2);
    expect(shape.tuplesPerCall).toBe(10_000);
    const estimate = estimateOf(job, cpuPlacement(1));
    expect(term(estimate, 'own block')).toBe(3200);
    expect(term(estimate, 'tallies in flight')).toBe(40_000);
    expect(term(estimate, 'received blocks')).toBe(0);
    // One thread computes inline: no kernel workers; the one panel is in flight, none is left to collect.
    expect(term(estimate, 'kernel threads')).toBe(0);
    expect(term(estimate, 'tallies awaiting collection')).toBe(0);
    expect(estimate.hostBytes).toBe(estimate.hostTerms.reduce((s, t) => s + t.bytes, 0));
    expect(estimate.deviceBytes).toBeNull();
  });

  it('counts sparse planes and term groups, and r² groups', () => {
    // Sparse CCC: 3 planes, 4 groups; nf 100 → 4 words.
    const sparse = shapeOf(makeJob({ numVector: 10, numField: 100, sparse: true }));
    expect(sparse).toMatchObject({ numPlanes: 3, wordsPerPlane: 4, blockBytes: 10 * 3 * 4 * 4, numGroups: 4 });
    expect(shapeOf(makeJob({ numVector: 10, numField: 100, metric: 'r2', sparse: true })).numGroups).toBe(7);
    expect(shapeOf(makeJob({ numVector: 10, numField: 100, metric: 'duo' })).numPlanes).toBe(1);
  });

  it('counts the blocks a 2-way rank receives from the block-circulant plan', () => {
    // npv 4: diagonals 0, 1, 2; the half diagonal 2 only by rows 0 and 1 (lower-rows): they read 2 other blocks.
    expect(maxReceivedBlocks(makeJob({ numVector: 40, numField: 10, decomposition: { numProcVector: 4 } }))).toBe(2);
    expect(maxReceivedBlocks(makeJob({ numVector: 50, numField: 10, decomposition: { numProcVector: 5 } }))).toBe(2);
    // Phase 0 of 3 is the diagonal block alone.
    expect(maxReceivedBlocks(makeJob({ numVector: 40, numField: 10, decomposition: { numProcVector: 4, numPhase: 3, phaseMax: 0 } }))).toBe(0);
    // 3-way npv 3 reads every other block.
    expect(maxReceivedBlocks(makeJob({ numWay: 3, numVector: 36, numField: 10, decomposition: { numProcVector: 3 } }))).toBe(2);
  });

  it('adds the ranks of one process, and copies in transit only between in-process ranks', () => {
    const job = makeJob({ numVector: 400, numField: 640, decomposition: { numProcVector: 4 } });
    const blockBytes = shapeOf(job).blockBytes;
    // 100 vectors · 2 planes · 20 words · 4 bytes.
    expect(blockBytes).toBe(100 * 2 * 20 * 4);
    const inProcess = estimateOf(job, cpuPlacement(4));
    const underMpi = estimateOf(job, { ...cpuPlacement(1), mpiLoaded: true });
    expect(term(inProcess, 'received blocks')).toBe(4 * 2 * blockBytes);
    expect(term(inProcess, 'blocks in transit')).toBe(4 * blockBytes);
    expect(term(underMpi, 'received blocks')).toBe(2 * blockBytes);
    expect(term(underMpi, 'blocks in transit')).toBe(0);
    expect(term(inProcess, 'rank threads')).toBeGreaterThan(0);
    expect(term(underMpi, 'rank threads')).toBe(0);
    expect(term(underMpi, 'MPI library')).toBeGreaterThan(0);
    expect(term(inProcess, 'MPI library')).toBe(0);
  });

  it('keeps a pooled rank\'s panels until its workers collect them, unless they go back to the kernel set', () => {
    // nv 6000, dense: 4 Mi pairs per panel; the diagonal block allocates 6000²/2 + 6000·2048/2 tallies.
    const job = makeJob({ numVector: 6000, numField: 32, numThreads: 2 });
    const all = ((6000 * 6000 + 6000 * 2048) / 2) * 4;
    const inFlight = 2 * 2 ** 22 * 4;
    // Field slabs: panels are summed across ranks, not handed back, so all of them wait for the workers' collector.
    const slabs = makeJob({ numVector: 6000, numField: 32, numThreads: 2, decomposition: { numProcField: 2 } });
    const kept = estimateOf(slabs, cpuPlacement(1, 2));
    expect(term(kept, 'tallies in flight')).toBe(inFlight);
    expect(term(kept, 'tallies awaiting collection')).toBe(all - inFlight);
    expect(term(kept, 'kernel threads')).toBeGreaterThan(0);
    expect(term(kept, 'finalize threads')).toBeGreaterThan(0);
    // One field slab: finalized panels go back to the kernel set for reuse, two beyond those in flight at most.
    const recycled = estimateOf(job, cpuPlacement(1, 2));
    expect(term(recycled, 'tallies awaiting collection')).toBe(inFlight);
    // On one thread, up to two more panels than those in flight wait for the collector.
    const inline = estimateOf({ ...job, numThreads: 1 }, cpuPlacement(1, 1));
    expect(term(inline, 'tallies awaiting collection')).toBe(inFlight);
    expect(term(inline, 'finalize threads')).toBe(0);
  });

  it('bounds a 3-way call by its unit and by 256 MiB of tallies', () => {
    // npv 1: one tetrahedron of nvl³/6 triples, dense: one group.
    const small = shapeOf(makeJob({ numWay: 3, numVector: 60, numField: 32 }));
    expect(small.numGroups).toBe(1);
    expect(small.tuplesPerCall).toBe(60 ** 3 / 6);
    const large = shapeOf(makeJob({ numWay: 3, numVector: 2000, numField: 32, sparse: true }));
    expect(large.numGroups).toBe(8);
    expect(large.tuplesPerCall * 8 * 4).toBe(256 * MiB);
  });

  it('estimates a GPU rank\'s device memory', () => {
    const job = makeJob({ numVector: 400, numField: 640, backend: 'webgpu', decomposition: { numProcVector: 4 } });
    const { blockBytes } = shapeOf(job);
    const plain = estimateOf(job, { ...cpuPlacement(4), dawnLoaded: true });
    expect(plain.deviceBytes).toBe(plain.deviceTerms.reduce((s, t) => s + t.bytes, 0));
    expect(deviceTerm(plain, 'resident planes')).toBe(3 * blockBytes);
    expect(deviceTerm(plain, 'u8 expansions')).toBe(0);
    // Tensor cores: an expanded row is 32 bytes per plane word: 100 · 2 · 20 · 32, kept and in use.
    const u8 = estimateOf(job, { ...cpuPlacement(4), dawnLoaded: true, gpuExpandsToU8: true });
    expect(deviceTerm(u8, 'u8 expansions')).toBe(2 * 100 * 2 * 20 * 32);
    expect(term(plain, 'Dawn (WebGPU)')).toBeGreaterThan(0);
    expect(term(plain, 'kernel threads')).toBe(0);
    // A software adapter's device memory is the host's: every rank's counts there too.
    expect(term(plain, 'GPU memory of a software adapter')).toBe(0);
    const software = estimateOf(job, { ...cpuPlacement(4), dawnLoaded: true, gpuIsSoftware: true });
    expect(term(software, 'GPU memory of a software adapter')).toBe(4 * (plain.deviceBytes ?? 0));
    expect(software.hostBytes).toBe(plain.hostBytes + 4 * (plain.deviceBytes ?? 0));
  });

  it('gives a top-N run on the device its large panels and their pass scratch', () => {
    const context = { ...cpuPlacement(1), dawnLoaded: true };
    // nv 3000: panels of up to nv² = 9 Mi pairs (within DEVICE_PAIRS_PER_PANEL), one group of u32 tallies each.
    const base = makeJob({ numVector: 3000, numField: 640, backend: 'webgpu', outputStub: '/tmp/out' });
    const records = estimateOf(base, context);
    const top = estimateOf({ ...base, top: 10 }, context);
    const pairs = 3000 * 3000;
    expect(deviceTerm(top, 'GEMM output')).toBe(2 ** Math.ceil(Math.log2(pairs * 4)));
    expect(deviceTerm(top, 'finalize pass scratch')).toBe(2 ** Math.ceil(Math.log2(20 * pairs)));
    // Threshold records keep the host's panels (4 Mi pairs).
    expect(deviceTerm(records, 'GEMM output')).toBe(2 ** Math.ceil(Math.log2((1 << 22) * 4)));
    expect(deviceTerm(records, 'finalize pass scratch')).toBe(2 ** Math.ceil(Math.log2(20 * (1 << 22))));
    expect(deviceTerm(estimateOf({ ...base, outputStub: null }, context), 'finalize pass scratch')).toBe(0);
    // nv 8192: panels of at most 1024 u8 tiles (2^25 pairs), not nv².
    const large = estimateOf({ ...makeJob({ numVector: 8192, numField: 640, backend: 'webgpu', outputStub: '/tmp/out' }), top: 10 }, context);
    expect(deviceTerm(large, 'GEMM output')).toBe(2 ** 25 * 4);
    expect(deviceTerm(large, 'finalize pass scratch')).toBe(2 ** Math.ceil(Math.log2(20 * 2 ** 25)));
  });
});

describe('memory check', () => {
  it('refuses a job over its host or device limit in one line naming the limit', () => {
    const check = (job: ReturnType<typeof makeJob>): string => {
      try {
        checkOf(job, { ...cpuPlacement(1), dawnLoaded: job.backend === 'webgpu' });
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        return (e as Error).message;
      }
      return '';
    };
    const host = check({ ...makeJob({ numVector: 100, numField: 64 }), memoryLimits: { hostBytes: 10 * MiB, deviceBytes: null } });
    expect(host).toMatch(/^estimated peak host memory \d+\.\d MiB exceeds --memory 10 MiB \(largest: .*\); .*raise --memory$/);
    expect(host).not.toContain('\n');
    const device = check({ ...makeJob({ numVector: 100, numField: 64, backend: 'webgpu' }), memoryLimits: { hostBytes: 2 ** 40, deviceBytes: MiB } });
    expect(device).toMatch(/^estimated peak GPU memory .* per rank exceeds --device-memory 1 MiB/);
    const report = checkOf({ ...makeJob({ numVector: 100, numField: 64 }), memoryLimits: { hostBytes: 2 ** 40, deviceBytes: null } }, cpuPlacement(1));
    expect(report).toMatchObject({ hostMemoryLimitBytes: 2 ** 40, estimatedDeviceBytes: null, deviceMemoryLimitBytes: null });
  });

  it('counts every process of the host under MPI', () => {
    const job = { ...makeJob({ numVector: 100, numField: 64 }), memoryLimits: { hostBytes: 0, deviceBytes: null } };
    const one = checkOf({ ...job, memoryLimits: { hostBytes: 2 ** 40, deviceBytes: null } }, cpuPlacement(1)).estimatedHostBytes;
    const limit = Math.ceil((one * 3) / MiB) * MiB;
    expect(() => checkOf({ ...job, memoryLimits: { hostBytes: limit, deviceBytes: null } }, { ...cpuPlacement(1), processesOnHost: 3 })).not.toThrow();
    expect(() => checkOf({ ...job, memoryLimits: { hostBytes: limit, deviceBytes: null } }, { ...cpuPlacement(1), processesOnHost: 4 }))
      .toThrow(/4 processes of/);
  });

  it('defaults the host limit to the memory available', async () => {
    const available = availableHostMemory();
    expect(available.bytes).toBeGreaterThan(0);
    expect(['MemAvailable', 'free memory']).toContain(available.source);
    const report = await checkJob(makeJob({ numVector: 10, numField: 10 }));
    expect(report.hostMemoryLimitBytes).toBeGreaterThan(0);
    expect(report.estimatedHostBytes).toBeGreaterThan(0);
  });

  it('bounds threads and in-process ranks', () => {
    expect(maxThreads(2)).toBe(64);
    expect(maxThreads(100)).toBe(400);
    expect(maxThreads(1000)).toBe(1024);
    const job = makeJob({ numVector: 10, numField: 10, numThreads: 65 });
    expect(() => checkThreadsAndRanks(job, 1, 2)).toThrow(/^--threads 65 is more than 64 .*give fewer --threads$/);
    expect(() => checkThreadsAndRanks({ ...job, numThreads: 64 }, 1, 2)).not.toThrow();
    expect(() => checkThreadsAndRanks({ ...job, numThreads: 1 }, MAX_IN_PROCESS_RANKS + 1, 2)).toThrow(/mpirun/);
    expect(() => checkThreadsAndRanks({ ...job, numThreads: 1 }, MAX_IN_PROCESS_RANKS, 2)).not.toThrow();
  });
});
