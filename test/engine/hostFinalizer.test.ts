// Host finalize on a pool of threads (the CPU kernel set's own threads, or a finalize pool of its own with `ref`):
// checksum, entries, zeros and output files byte for byte equal those of one thread, for every metric, 2-way and 3-way; --verify still checks every value; errors in a worker reach the caller
// as they do on one thread. Sizes are chosen so that one panel or batch makes several pool tasks (over 2^17
// pairs, or 2^16 triples, per thread count); the SPEC §5 cases are below one task and finalize on the calling thread.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { runJob } from '../../src/engine/index.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, SPEC_CASES, type JobOptions } from './jobFixtures.js';

const gate = await webgpuGate();

const THREAD_COUNTS = [2, 3] as const;

const CASES: readonly { readonly name: string; readonly job: JobOptions }[] = [
  { name: 'CCC 2-way dense nv 1100 nf 300, threshold 0.65', job: { numVector: 1100, numField: 300, threshold: 0.65 } },
  { name: 'CCC 2-way sparse nv 1037 nf 301, threshold 0.8', job: { sparse: true, numVector: 1037, numField: 301, threshold: 0.8 } },
  { name: 'DUO 2-way dense nv 1100 nf 300, threshold 0.65', job: { metric: 'duo', numVector: 1100, numField: 300, threshold: 0.65 } },
  { name: 'DUO 2-way sparse nv 1100 nf 200, threshold 0.7', job: { metric: 'duo', sparse: true, numVector: 1100, numField: 200, threshold: 0.7 } },
  { name: 'r² dense nv 1100 nf 300, threshold 0.01', job: { metric: 'r2', numVector: 1100, numField: 300, threshold: 0.01 } },
  { name: 'r² sparse nv 1100 nf 300, threshold 0.01', job: { metric: 'r2', sparse: true, numVector: 1100, numField: 300, threshold: 0.01 } },
  { name: 'CCC 3-way dense nv 120 nf 300, threshold 0.3', job: { numWay: 3, numVector: 120, numField: 300, threshold: 0.3 } },
  { name: 'CCC 3-way sparse nv 117 nf 300, threshold 0.4', job: { numWay: 3, sparse: true, numVector: 117, numField: 300, threshold: 0.4 } },
  {
    name: 'CCC 2-way sparse nv 3000 nf 64, 3 panels (tallies recycled from panel to panel), threshold 0.9',
    job: { sparse: true, numVector: 3000, numField: 64, threshold: 0.9 },
  },
  {
    name: 'CCC 2-way dense nv 1100 nf 300, 2 field slabs (tallies summed over ranks), threshold 0.65',
    job: { numVector: 1100, numField: 300, threshold: 0.65, decomposition: { numProcField: 2 } },
  },
  {
    name: 'CCC 3-way dense nv 150 nf 200, 2 vector blocks, threshold 0.3',
    job: { numWay: 3, numVector: 150, numField: 200, threshold: 0.3, decomposition: { numProcVector: 2 } },
  },
];

/** Ranks of a job: each gets an equal share of the job's threads. */
const ranksOf = (job: JobOptions): number =>
  (job.decomposition?.numProcVector ?? 1) * (job.decomposition?.numProcField ?? 1) * (job.decomposition?.numProcRepl ?? 1);

describe('host finalize on a pool of threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'snptally-hostfin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const c of CASES) {
    it(`equals one thread: ${c.name}`, async () => {
      const stub = (tag: string): string => join(dir, `${c.name.replace(/[^a-z0-9]+/gi, '_')}_${tag}`);
      const one = await runJob(makeJob({ ...c.job, numThreads: ranksOf(c.job), outputStub: stub('t1') }));
      expect(one.entries).toBeGreaterThan(0);
      const wanted = one.outputFiles.map((file) => readFileSync(file));
      expect(wanted.some((bytes) => bytes.length > 0)).toBe(true);
      for (const threadsPerRank of THREAD_COUNTS) {
        const many = await runJob(makeJob({ ...c.job, numThreads: threadsPerRank * ranksOf(c.job), outputStub: stub(`t${threadsPerRank}`) }));
        expect({ checksum: many.checksum, entries: many.entries, zeros: many.zeros }).toEqual({ checksum: one.checksum, entries: one.entries, zeros: one.zeros });
        expect(many.outputFiles.length).toBe(wanted.length);
        many.outputFiles.forEach((file, idx) => expect(readFileSync(file).equals(wanted[idx])).toBe(true));
      }
    });
  }

  it('on a finalize pool of its own (ref kernels: no worker threads to share) equals one thread: CCC 2-way sparse and 3-way dense', async () => {
    for (const job of [{ sparse: true, numVector: 1037, numField: 301, threshold: 0.8 }, { numWay: 3, numVector: 120, numField: 300, threshold: 0.3 }] satisfies JobOptions[]) {
      const stub = (tag: string): string => join(dir, `ref_pool_${job.numVector}_${tag}`);
      const one = await runJob(makeJob({ ...job, backend: 'ref', outputStub: stub('t1') }));
      const many = await runJob(makeJob({ ...job, backend: 'ref', numThreads: 2, outputStub: stub('t2') }));
      expect(one.entries).toBeGreaterThan(0);
      expect({ checksum: many.checksum, entries: many.entries, zeros: many.zeros }).toEqual({ checksum: one.checksum, entries: one.entries, zeros: one.zeros });
      expect(readFileSync(many.outputFiles[0]).equals(readFileSync(one.outputFiles[0]))).toBe(true);
    }
  });

  for (const numWay of [2, 3] as const) {
    it(`--verify checks every ${numWay}-way value of the analytic problem on 1, 2 and 3 threads`, async () => {
      const numVector = numWay === 2 ? 600 : 80;
      const tuples = numWay === 2 ? (numVector * (numVector - 1)) / 2 : (numVector * (numVector - 1) * (numVector - 2)) / 6;
      const checksums = new Set<string>();
      for (const numThreads of [1, ...THREAD_COUNTS]) {
        const result = await runJob(makeJob({ numWay, sparse: true, numVector, numField: 300, source: { kind: 'analytic' }, verify: true, numThreads }));
        expect(result.verifiedValues).toBe(2 ** numWay * tuples);
        checksums.add(result.checksum);
      }
      expect(checksums.size).toBe(1);
    });
  }

  for (const c of SPEC_CASES) {
    it(`SPEC §5 checksum on 3 threads: ${c.name}`, async () => {
      expect((await runJob(makeJob({ ...c.job, numThreads: 3 }))).checksum).toBe(c.checksum);
    });
  }

  it.skipIf(!gate.available)(`GPU tallies read back (webgpu, --finalize host) on 2 threads equal the cpu backend's (${gate.description})`, async () => {
    const job: JobOptions = { sparse: true, numVector: 1037, numField: 301, threshold: 0.8 };
    const cpu = await runJob(makeJob({ ...job, outputStub: join(dir, 'gpu_ref') }));
    const gpu = await runJob(makeJob({ ...job, backend: 'webgpu', finalize: 'host', numThreads: 2, outputStub: join(dir, 'gpu_host') }));
    expect({ checksum: gpu.checksum, entries: gpu.entries, deviceFinalizedPairs: gpu.deviceFinalizedPairs }).toEqual({ checksum: cpu.checksum, entries: cpu.entries, deviceFinalizedPairs: 0 });
    expect(readFileSync(gpu.outputFiles[0]).equals(readFileSync(cpu.outputFiles[0]))).toBe(true);
  });

  it('a value out of the checksum range fails as on one thread (a UserError from a worker)', async () => {
    const failure = async (numThreads: number): Promise<unknown> => {
      const job = makeJob({ numVector: 1100, numField: 300, numThreads });
      return runJob({ ...job, metricSpec: { ...job.metricSpec, multiplier: 1000 } }).then(() => null, (error: unknown) => error);
    };
    const one = await failure(1);
    const many = await failure(3);
    expect(one).toBeInstanceOf(UserError);
    expect(many).toBeInstanceOf(UserError);
    expect((many as UserError).message).toBe((one as UserError).message);
  });
});
