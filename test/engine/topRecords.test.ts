// run --top N against a naive reference (naiveTop.ts: every value of a small problem, sorted): CCC, DUO and r², 2-way
// and 3-way, ref and cpu, over npv, npf, npr, phases and stages, with the analytic problem's many ties, N beyond the
// number of entries, a threshold, threads 1 and 2 (finalize workers), and on the GPU (device finalize, with the
// records-only bar over several panels and batches); the sink itself against a full sort, its bar against the N-th
// strongest so far; refusals.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalyticProblem, randomProblemCode } from '../../src/core/syntheticProblems.js';
import { MAX_TOP_RECORDS } from '../../src/core/limits.js';
import { checkJob, runJob, type JobSpec } from '../../src/engine/index.js';
import { TopRecords } from '../../src/engine/finalize/topRecordsSink.js';
import { CARRIER_ANALYSIS_MODULE, CARRIER_ANALYSIS_NAME } from '../analyses/carrierAnalysis.js';
import { naiveTopRecordWords } from '../helpers/naiveTop.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, type JobOptions } from './jobFixtures.js';

const gate = await webgpuGate();
const dir = mkdtempSync(join(tmpdir(), 'snptally-top-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let stubIdx = 0;
function topJob(o: JobOptions & { readonly metric?: JobOptions['metric'] | 'r2' }, count: number): JobSpec {
  return { ...makeJob({ ...o, outputStub: join(dir, `run${stubIdx++}`) } as JobOptions), top: count };
}

/** Runs `job` and returns its one file's record words. */
async function runTop(job: JobSpec): Promise<{ words: Uint32Array; result: Awaited<ReturnType<typeof runJob>> }> {
  const result = await runJob(job);
  const path = `${job.outputStub}_top.bin`;
  expect(result.outputFiles).toEqual([path]);
  const bytes = readFileSync(path);
  return { words: new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4), result };
}

function naiveOf(job: JobSpec, count: number, threshold: number | null = null): Uint32Array {
  const { numVector, numField } = job;
  const code = job.source.kind === 'analytic'
    ? ((p) => (v: number, f: number) => p.code(v, f))(new AnalyticProblem(numVector, numField))
    : (v: number, f: number) => randomProblemCode(v, f, numField);
  return naiveTopRecordWords(job.metricSpec, numVector, numField, code, count, threshold);
}

interface Case {
  readonly name: string;
  readonly job: JobOptions;
  readonly count: number;
}

const ANALYTIC = { kind: 'analytic' } as const;
const CASES: readonly Case[] = [
  { name: 'CCC 2-way nv 23 nf 50', job: { numVector: 23, numField: 50 }, count: 17 },
  { name: 'CCC 2-way nv 26 nf 40, npv 3, 2 phases', job: { numVector: 26, numField: 40, decomposition: { numProcVector: 3, numPhase: 2 } }, count: 40 },
  { name: 'DUO 2-way sparse nv 21 nf 57, npf 2, npv 2', job: { metric: 'duo', sparse: true, numVector: 21, numField: 57, decomposition: { numProcField: 2, numProcVector: 2 } }, count: 25 },
  { name: 'CCC 2-way analytic nv 30 nf 24 (ties), npv 2 npr 2', job: { numVector: 30, numField: 24, source: ANALYTIC, decomposition: { numProcVector: 2, numProcRepl: 2 } }, count: 60 },
  { name: 'CCC 2-way nv 9 nf 20, N beyond the entries', job: { numVector: 9, numField: 20 }, count: 1000 },
  { name: 'CCC 2-way nv 20 nf 30, threshold 0.5', job: { numVector: 20, numField: 30, threshold: 0.5 }, count: 30 },
  { name: 'CCC 3-way nv 12 nf 45, npv 2, 2 stages', job: { numWay: 3, numVector: 12, numField: 45, decomposition: { numProcVector: 2, numStage: 2 } }, count: 33 },
  { name: 'DUO 3-way sparse nv 11 nf 31, npv 3, npf 2', job: { metric: 'duo', numWay: 3, sparse: true, numVector: 11, numField: 31, decomposition: { numProcVector: 3, numProcField: 2 } }, count: 20 },
  { name: 'CCC 3-way analytic nv 14 nf 16 (ties), npv 1, 3 stages', job: { numWay: 3, numVector: 14, numField: 16, source: ANALYTIC, decomposition: { numStage: 3 } }, count: 70 },
];

describe('run --top N equals the naive top N', () => {
  for (const backend of ['ref', 'cpu'] as const) {
    for (const c of CASES) {
      it(`${c.name} (${backend})`, async () => {
        const job = topJob({ ...c.job, backend }, c.count);
        const { words } = await runTop(job);
        expect(words).toEqual(naiveOf(job, c.count, c.job.threshold ?? null));
      });
    }
  }

  it('r² nv 40 nf 60 sparse, npv 2, 2 phases (cpu); the checksum is that of the run without --top', async () => {
    const options = { metric: 'r2', sparse: true, numVector: 40, numField: 60, decomposition: { numProcVector: 2, numPhase: 2 } } as unknown as JobOptions;
    const job = topJob(options, 50);
    const { words, result } = await runTop(job);
    expect(words).toEqual(naiveOf(job, 50));
    const plain = await runJob(makeJob(options));
    expect(result.checksum).toBe(plain.checksum);
    expect(result.entries).toBe(plain.entries);
  });

  it('threads 1 and 2 (finalize workers, 2-way and 3-way) write identical files, equal to the naive top N', async () => {
    for (const job of [{ numVector: 560, numField: 16 }, { numWay: 3 as const, numVector: 78, numField: 12 }]) {
      const one = await runTop(topJob({ ...job, numThreads: 1 }, 300));
      const two = await runTop(topJob({ ...job, numThreads: 2 }, 300));
      expect(two.words).toEqual(one.words);
      expect(one.words).toEqual(naiveOf(topJob(job, 300), 300));
    }
  }, 120_000);
});

describe.skipIf(!gate.available)(`run --top N on the GPU (${gate.description})`, () => {
  const GPU_CASES: readonly Case[] = [
    { name: 'CCC 2-way nv 31 nf 70, npv 2, 2 phases', job: { numVector: 31, numField: 70, decomposition: { numProcVector: 2, numPhase: 2 } }, count: 45 },
    { name: 'DUO 2-way analytic nv 24 nf 16 (ties)', job: { metric: 'duo', numVector: 24, numField: 16, source: ANALYTIC }, count: 50 },
    { name: 'CCC 3-way sparse nv 13 nf 40, 2 stages', job: { numWay: 3, sparse: true, numVector: 13, numField: 40, decomposition: { numStage: 2 } }, count: 64 },
    { name: 'CCC 3-way analytic nv 12 nf 16 (ties), npv 2', job: { numWay: 3, numVector: 12, numField: 16, source: ANALYTIC, decomposition: { numProcVector: 2 } }, count: 30 },
  ];
  for (const c of GPU_CASES) {
    it(`${c.name}: every tuple finalized on the device`, async () => {
      const job = topJob({ ...c.job, backend: 'webgpu' }, c.count);
      const { words, result } = await runTop(job);
      expect(words).toEqual(naiveOf(job, c.count));
      const n = c.job.numVector;
      const tuples = (c.job.numWay ?? 2) === 2 ? (n * (n - 1)) / 2 : (n * (n - 1) * (n - 2)) / 6;
      expect((c.job.numWay ?? 2) === 2 ? result.deviceFinalizedPairs : result.deviceFinalizedTriples).toBe(tuples);
    });
  }
});

describe.skipIf(!gate.available)(`run --top N on the GPU with the records-only bar (${gate.description})`, () => {
  // Problems of several device panels (2-way) or batches (3-way), so that the bar is set after the first and bars the
  // rest: the file equals the naive top N, checksum, entries and histograms equal the CPU backend's (the bar never
  // touches them), and fewer records than the passing entries come back.
  const BAR_CASES: readonly (Case & { readonly histograms?: boolean })[] = [
    { name: 'CCC 2-way nv 600 nf 40, histograms', job: { numVector: 600, numField: 40 }, count: 150, histograms: true },
    { name: 'CCC 2-way sparse nv 560 nf 48, npv 2, 2 phases, threshold 0.3', job: { sparse: true, numVector: 560, numField: 48, threshold: 0.3, decomposition: { numProcVector: 2, numPhase: 2 } }, count: 90 },
    { name: 'DUO 2-way analytic nv 620 nf 16 (ties)', job: { metric: 'duo', numVector: 620, numField: 16, source: ANALYTIC }, count: 200 },
    { name: 'r² 2-way nv 580 nf 60, npv 3', job: { metric: 'r2', sparse: true, numVector: 580, numField: 60, decomposition: { numProcVector: 3 } } as unknown as JobOptions, count: 120 },
    { name: 'CCC 3-way nv 100 nf 40, histograms', job: { numWay: 3, numVector: 100, numField: 40 }, count: 100, histograms: true },
    { name: 'DUO 3-way sparse analytic nv 70 nf 16 (ties), npv 2', job: { metric: 'duo', numWay: 3, sparse: true, numVector: 70, numField: 16, source: ANALYTIC, decomposition: { numProcVector: 2 } }, count: 80 },
  ];
  for (const c of BAR_CASES) {
    it(`${c.name}`, async () => {
      const histogramPath = (name: string): string | null => (c.histograms === true ? join(dir, `bar${stubIdx}-${name}.tsv`) : null);
      const job: JobSpec = { ...topJob({ ...c.job, backend: 'webgpu' }, c.count), histogramPath: histogramPath('gpu') };
      const { words, result } = await runTop(job);
      expect(words).toEqual(naiveOf(job, c.count, c.job.threshold ?? null));
      const cpuJob: JobSpec = { ...makeJob({ ...c.job, backend: 'cpu' }), histogramPath: histogramPath('cpu') };
      const cpu = await runJob(cpuJob);
      expect({ checksum: result.checksum, entries: result.entries }).toEqual({ checksum: cpu.checksum, entries: cpu.entries });
      if (c.histograms === true) expect(readFileSync(job.histogramPath as string, 'utf8')).toBe(readFileSync(cpuJob.histogramPath as string, 'utf8'));
      const n = c.job.numVector;
      const numWay = c.job.numWay ?? 2;
      expect(numWay === 2 ? result.deviceFinalizedPairs : result.deviceFinalizedTriples).toBe(numWay === 2 ? (n * (n - 1)) / 2 : (n * (n - 1) * (n - 2)) / 6);
      expect(result.deviceRecordsReadBack).toBeGreaterThanOrEqual(c.count);
      expect(result.deviceRecordsReadBack).toBeLessThan(result.entries / 2);
    }, 60_000);
  }
});

describe('TopRecords keeps the N strongest records exactly', () => {
  it('records with many ties, appended in uneven chunks, equal a full sort; smaller-is-stronger too', () => {
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const numRecords = 5000;
    const words = new Uint32Array(numRecords * 3);
    const values = new Float32Array(words.buffer);
    for (let r = 0; r < numRecords; r++) {
      // Coordinates in ascending order, as the sink puts them (the engine tests above give it both orders).
      const [x, y] = [next() % 40, next() % 40];
      words[3 * r] = Math.min(x, y);
      words[3 * r + 1] = Math.max(x, y);
      values[3 * r + 2] = r % 97 === 0 ? Number.NaN : (next() % 13) / 8;
    }
    for (const stronger of ['larger', 'smaller'] as const) {
      const top = new TopRecords(2, { count: 123, stronger });
      for (let at = 0, size = 1; at < numRecords; at += size, size = 1 + (size * 7) % 301) {
        const end = Math.min(numRecords, at + size);
        top.appendRecordWords(words.subarray(3 * at, 3 * end), end - at);
      }
      const order = Array.from({ length: numRecords }, (_, r) => r).filter((r) => !Number.isNaN(values[3 * r + 2]));
      const sign = stronger === 'larger' ? 1 : -1;
      order.sort((a, b) => sign * (values[3 * b + 2] - values[3 * a + 2]) || (words[3 * a] >> 1) - (words[3 * b] >> 1)
        || (words[3 * a + 1] >> 1) - (words[3 * b + 1] >> 1) || (words[3 * a] & 1) - (words[3 * b] & 1) || (words[3 * a + 1] & 1) - (words[3 * b + 1] & 1));
      const expected = order.slice(0, 123).flatMap((r) => [words[3 * r], words[3 * r + 1], words[3 * r + 2]]);
      const taken = top.take();
      expect(taken.numRecords).toBe(123);
      expect(Array.from(taken.words)).toEqual(expected);
    }
  });
});

describe('TopRecords.recordBar: the device\'s records-only bar', () => {
  it('null until N records are held; then never stronger than the N-th strongest so far, exact when first set, tightening', () => {
    let seed = 777;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const bitsOf = (value: number): number => new Uint32Array(Float32Array.of(value).buffer)[0];
    for (const stronger of ['larger', 'smaller'] as const) {
      const count = 40;
      const sign = stronger === 'larger' ? 1 : -1;
      const top = new TopRecords(2, { count, stronger });
      const plain = new TopRecords(2, { count, stronger });
      const seen: number[] = [];
      const bars: number[] = [];
      for (let chunk = 0; chunk < 80; chunk++) {
        const numRecords = 1 + (next() % 9);
        const words = new Uint32Array(3 * numRecords);
        const values = new Float32Array(words.buffer);
        for (let r = 0; r < numRecords; r++) {
          words[3 * r] = next() % 50;
          words[3 * r + 1] = 100 + (next() % 50);
          // Many ties, zeros among them, and NaNs, which never rank.
          values[3 * r + 2] = r === 0 && chunk % 11 === 5 ? Number.NaN : (next() % 23) / 16;
          if (!Number.isNaN(values[3 * r + 2])) seen.push(values[3 * r + 2]);
        }
        top.appendRecordWords(words, numRecords);
        plain.appendRecordWords(words, numRecords);
        const nth = [...seen].sort((a, b) => sign * (b - a))[count - 1];
        const bar = top.recordBar();
        if (seen.length < count) {
          expect(bar).toBeNull();
          continue;
        }
        if (bar === null) throw new Error(`no bar with ${seen.length} records held`);
        expect(bar.keep).toBe(stronger === 'larger' ? 'atLeast' : 'atMost');
        const barValue = new Float32Array(Uint32Array.of(bar.valueBits).buffer)[0];
        expect(bar.valueBits).toBe(bitsOf(barValue));
        // A valid bar: at least N records seen are as strong as it, so a weaker one can never be kept.
        expect(sign * (nth - barValue)).toBeGreaterThanOrEqual(0);
        if (bars.length === 0) expect(barValue).toBe(nth);
        bars.push(barValue);
      }
      expect(sign * (bars[bars.length - 1] - bars[0])).toBeGreaterThan(0);
      // Asking for the bar leaves what the sink keeps unchanged.
      expect(top.take()).toEqual(plain.take());
    }
  });
});

describe('top-N jobs refused', () => {
  it('an analysis that declares no top-N', async () => {
    const job: JobSpec = { ...topJob({ metric: CARRIER_ANALYSIS_NAME, numVector: 8, numField: 16 } as unknown as JobOptions, 5), analysisModule: CARRIER_ANALYSIS_MODULE };
    await expect(checkJob(job)).rejects.toThrow(`--top: --metric ${CARRIER_ANALYSIS_NAME} declares no top-N result`);
  });

  it('no output stub, --matrix, N out of range', async () => {
    await expect(checkJob({ ...makeJob({ numVector: 8, numField: 16 }), top: 5 })).rejects.toThrow('--top needs --output STUB');
    const r2 = topJob({ metric: 'r2', numVector: 8, numField: 16 } as unknown as JobOptions, 5);
    await expect(checkJob({ ...r2, matrix: { shape: 'square', format: 'text' } })).rejects.toThrow('--top keeps records; --matrix');
    await expect(checkJob({ ...r2, top: 0 })).rejects.toThrow(`--top 0: must be an integer from 1 to ${MAX_TOP_RECORDS}`);
    await expect(checkJob({ ...r2, top: MAX_TOP_RECORDS + 1 })).rejects.toThrow('--top 100000001: must be an integer');
  });

  it('an existing file without force; replaced with force', async () => {
    const job = topJob({ numVector: 9, numField: 20 }, 7);
    await runTop(job);
    await expect(runJob(job)).rejects.toThrow(`output ${job.outputStub}_top.bin already exists; use --force to overwrite`);
    const forced = await runTop({ ...job, force: true });
    expect(forced.words).toEqual(naiveOf(job, 7));
    expect(existsSync(`${job.outputStub}_0.bin`)).toBe(false);
  });
});
