// LD windows against a naive reference: every pair's values straight from the codes (naiveMetrics.ts, naiveR2.ts),
// kept when a predicate written here from the loci says so; checksum, entries, records and histograms of windowed
// runs of CCC, DUO and r² on ref, cpu and webgpu (device finalize), over npv, npf, npr, phases, half-diagonal split and
// threads. Also: only tiles that touch the band are computed (comparisons), and steps whose blocks miss the band are
// neither computed nor exchanged; a windowed --top N on the GPU (records-only bar) writes the CPU run's file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChecksumAccumulator, entryUid2, formatChecksum } from '../../src/core/checksum.js';
import { pairWindowLimits, type PairWindowSpec } from '../../src/core/pairWindow.js';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { runJob, type JobSpec } from '../../src/engine/index.js';
import { rankLayout } from '../../src/engine/run/rankPlans.js';
import { naiveMetrics } from '../helpers/naiveMetrics.js';
import { naiveR2 } from '../helpers/naiveR2.js';
import { histogramFileText, naiveHistogramCounts, specTupleValues } from '../helpers/naiveHistogram.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, type JobOptions } from './jobFixtures.js';
import { seededLoci, type Loci } from '../helpers/seededLoci.js';

const gate = await webgpuGate();
const dir = mkdtempSync(join(tmpdir(), 'snptally-window-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Chromosomes of `sizes` vectors each, positions rising by seeded gaps of 0–9,999 bp (some 0: equal positions). */
function lociOf(sizes: readonly number[], seed: number): Loci {
  return seededLoci(sizes, seed, { startJitter: 5000, maxGap: 10_000, equalPositions: true });
}

/** The window as PLINK 1.9 defines it, pair by pair. */
function naiveInWindow(loci: ReturnType<typeof lociOf>, spec: PairWindowSpec, i: number, j: number): boolean {
  const [lo, hi] = i < j ? [i, j] : [j, i];
  if (loci.chromosome[lo] !== loci.chromosome[hi]) return spec.interChr;
  if (spec.maxVectorSpan !== null && hi - lo >= spec.maxVectorSpan) return false;
  return spec.maxDistanceBp === null || loci.position[hi] - loci.position[lo] <= spec.maxDistanceBp;
}

interface Expected {
  readonly checksum: string;
  readonly entries: number;
  readonly numPairs: number;
  /** `i j bits value-bits` of every record, sorted. */
  readonly records: string[];
}

/** The naive windowed result of a random problem (no threshold: every entry of every pair in the window). */
function naiveWindowed(job: JobSpec, loci: ReturnType<typeof lociOf>, spec: PairWindowSpec): Expected {
  const { metricSpec, numVector, numField } = job;
  const code = (v: number, f: number): number => randomProblemCode(v, f, numField);
  const acc = new ChecksumAccumulator();
  const records: string[] = [];
  const keep = (i: number, a: number, j: number, b: number, value: number): void => {
    acc.add(entryUid2(numVector, i, a, j, b), value);
    records.push(`${2 * i + a} ${2 * j + b} ${Math.fround(value)}`);
  };
  let numPairs = 0;
  for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) if (naiveInWindow(loci, spec, i, j)) numPairs++;
  if (metricSpec.metric === 'r2') {
    for (const [key, value] of naiveR2(numVector, numField, metricSpec.sparse, code).values) {
      const [i, j] = key.split(',').map(Number);
      if (naiveInWindow(loci, spec, i, j)) keep(i, 1, j, 1, value);
    }
  } else {
    for (const [key, value] of naiveMetrics(metricSpec, numVector, numField, code, { keepValues: true }).values) {
      const [i, j, bits] = key.split(',');
      if (naiveInWindow(loci, spec, Number(i), Number(j))) keep(Number(i), Number(bits[0]), Number(j), Number(bits[1]), value);
    }
  }
  return { checksum: formatChecksum(acc.sum()), entries: acc.entries, numPairs, records: records.sort() };
}

/** Every record of a run's files as `c0 c1 value` with coordinates ascending, sorted. */
function recordsOf(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const values = new Float32Array(words.buffer, words.byteOffset, words.length);
    for (let r = 0; r < words.length; r += 3) {
      const [c0, c1] = words[r] < words[r + 1] ? [words[r], words[r + 1]] : [words[r + 1], words[r]];
      out.push(`${c0} ${c1} ${values[r + 2]}`);
    }
  }
  return out.sort();
}

let stubIdx = 0;
function windowedJob(o: JobOptions & { readonly metric?: JobOptions['metric'] | 'r2' }, loci: ReturnType<typeof lociOf>, spec: PairWindowSpec): JobSpec {
  const limits = pairWindowLimits(spec, { ...loci, record: (v) => `vector ${v}` }, 'test loci');
  return {
    ...makeJob({ ...o, outputStub: join(dir, `run${stubIdx++}`) } as JobOptions),
    window: { ldWindow: spec.maxVectorSpan, ldWindowKb: spec.maxDistanceBp === null ? null : spec.maxDistanceBp / 1000, interChr: spec.interChr, limits },
  };
}

const LOCI = lociOf([31, 40, 1, 24], 7);
const NUM_VECTOR = LOCI.chromosome.length;
const SPECS: readonly { readonly name: string; readonly spec: PairWindowSpec }[] = [
  { name: '--ld-window 6', spec: { maxVectorSpan: 6, maxDistanceBp: null, interChr: false } },
  { name: '--ld-window-kb 20', spec: { maxVectorSpan: null, maxDistanceBp: 20_000, interChr: false } },
  { name: '--ld-window 9 --ld-window-kb 30 --inter-chr', spec: { maxVectorSpan: 9, maxDistanceBp: 30_000, interChr: true } },
];
const DECOMPOSITIONS: readonly JobOptions['decomposition'][] = [
  {},
  { numProcVector: 3, numProcField: 2 },
  { numProcVector: 4, halfDiagonal: 'split', numPhase: 3 },
  { numProcVector: 2, numProcRepl: 2 },
];

describe('windowed runs equal the naive windowed reference', () => {
  const metrics = [
    { metric: 'ccc', sparse: false },
    { metric: 'duo', sparse: true },
    { metric: 'r2', sparse: true },
  ] as const;
  for (const [s, { name, spec }] of SPECS.entries()) {
    // DUO shares CCC's finalize path: one window is enough for it.
    for (const m of metrics.filter((x) => x.metric !== 'duo' || s === 0)) {
      it(`${m.metric} ${name}: ref, and cpu on four decompositions, threads 1 and 2`, async () => {
        const expected = naiveWindowed(windowedJob({ ...m, numVector: NUM_VECTOR, numField: 37 }, LOCI, spec), LOCI, spec);
        for (const backend of ['ref', 'cpu'] as const) {
          for (const [d, decomposition] of DECOMPOSITIONS.entries()) {
            if (backend === 'ref' && d > 0) continue;
            const numThreads = backend === 'cpu' && d % 2 === 1 ? 2 : 1;
            const job = windowedJob({ ...m, numVector: NUM_VECTOR, numField: 37, backend, decomposition, numThreads }, LOCI, spec);
            const result = await runJob(job);
            expect({ checksum: result.checksum, entries: result.entries, windowPairs: result.windowPairs }, `${backend} ${JSON.stringify(decomposition)}`)
              .toEqual({ checksum: expected.checksum, entries: expected.entries, windowPairs: expected.numPairs });
            expect(recordsOf(result.outputFiles)).toEqual(expected.records);
          }
        }
      }, 60_000);
    }
  }

  it('histograms count exactly the pairs in the window (cpu, 2 threads, npv 3)', async () => {
    const spec = SPECS[1].spec;
    const job = { ...windowedJob({ numVector: NUM_VECTOR, numField: 37, numThreads: 2, decomposition: { numProcVector: 3 } }, LOCI, spec), histogramPath: join(dir, 'window.hist') };
    await runJob(job);
    const code = (v: number, f: number): number => randomProblemCode(v, f, 37);
    const pairs: [number, number][] = [];
    for (let i = 0; i < NUM_VECTOR; i++) for (let j = i + 1; j < NUM_VECTOR; j++) pairs.push([i, j]);
    const tuples = specTupleValues(job.metricSpec, NUM_VECTOR, 37, code).filter((_, t) => naiveInWindow(LOCI, spec, pairs[t][0], pairs[t][1]));
    expect(readFileSync(job.histogramPath, 'utf8')).toBe(histogramFileText(['LL', 'LH', 'HH', 'LL+HH'], naiveHistogramCounts(2, 4500, tuples)));
  });
});

describe.skipIf(!gate.available)(`windowed runs on the GPU (${gate.description})`, () => {
  for (const { name, spec } of SPECS) {
    for (const m of [{ metric: 'ccc', sparse: true }, { metric: 'r2', sparse: true }] as const) {
      it(`${m.metric} ${name}: device finalize equals the naive reference, npv 1 and npv 3 split`, async () => {
        const expected = naiveWindowed(windowedJob({ ...m, numVector: NUM_VECTOR, numField: 37 }, LOCI, spec), LOCI, spec);
        for (const decomposition of [{}, { numProcVector: 4, halfDiagonal: 'split' as const }]) {
          const result = await runJob(windowedJob({ ...m, numVector: NUM_VECTOR, numField: 37, backend: 'webgpu', decomposition }, LOCI, spec));
          expect({ checksum: result.checksum, entries: result.entries }).toEqual({ checksum: expected.checksum, entries: expected.entries });
          expect(result.deviceFinalizedPairs).toBeGreaterThan(0);
          expect(recordsOf(result.outputFiles)).toEqual(expected.records);
        }
      }, 60_000);
    }
  }
});

describe.skipIf(!gate.available)(`windowed --top N on the GPU with the records-only bar (${gate.description})`, () => {
  it('r² and CCC, --ld-window-kb over 3 chromosomes, npv 2: the CPU run\'s top file, checksum and entries; fewer records back', async () => {
    const loci = lociOf([700, 500, 300], 11);
    const spec: PairWindowSpec = { maxVectorSpan: null, maxDistanceBp: 150_000, interChr: false };
    for (const m of [{ metric: 'r2', sparse: true }, { metric: 'ccc', sparse: false }] as const) {
      const job = (backend: 'cpu' | 'webgpu'): JobSpec => ({
        ...windowedJob({ ...m, numVector: loci.chromosome.length, numField: 45, backend, decomposition: { numProcVector: 2 } }, loci, spec), top: 300,
      });
      const gpu = await runJob(job('webgpu'));
      const cpu = await runJob(job('cpu'));
      expect({ checksum: gpu.checksum, entries: gpu.entries, windowPairs: gpu.windowPairs })
        .toEqual({ checksum: cpu.checksum, entries: cpu.entries, windowPairs: cpu.windowPairs });
      expect(readFileSync(gpu.outputFiles[0])).toEqual(readFileSync(cpu.outputFiles[0]));
      expect(gpu.deviceFinalizedPairs).toBeGreaterThan(0);
      expect(gpu.deviceRecordsReadBack).toBeGreaterThanOrEqual(300);
      expect(gpu.deviceRecordsReadBack).toBeLessThan(gpu.entries / 2);
    }
  }, 120_000);
});

describe('only the band is computed', () => {
  // 4000 vectors on 2 chromosomes, a window of 10 vectors: 36k pairs of 8M.
  const loci = lociOf([2500, 1500], 3);
  const spec: PairWindowSpec = { maxVectorSpan: 10, maxDistanceBp: null, interChr: false };
  const numVector = loci.chromosome.length;

  it('comparisons are the band tiles (≈ pairs in the window), not all pairs, on one and on four blocks', async () => {
    let inWindow = 0;
    for (let i = 0; i < numVector; i++) for (let j = i + 1; j < Math.min(numVector, i + 10); j++) if (naiveInWindow(loci, spec, i, j)) inWindow++;
    for (const decomposition of [{}, { numProcVector: 4 }]) {
      const result = await runJob(windowedJob({ numVector, numField: 8, decomposition }, loci, spec));
      const computed = result.comparisons / 8;
      expect(result.windowPairs).toBe(inWindow);
      // Panels of 32 rows around a band 9 wide: at most (32 + 9) columns a row.
      expect(computed).toBeLessThanOrEqual(numVector * 41);
      expect(computed).toBeLessThan((numVector * (numVector - 1)) / 2 / 50);
    }
  }, 60_000);

  it('a step whose blocks miss the band is skipped and its block not exchanged', () => {
    const job = windowedJob({ numVector, numField: 8, decomposition: { numProcVector: 4 } }, loci, spec);
    for (let rank = 0; rank < 4; rank++) {
      const layout = rankLayout(job, rank);
      // Only the diagonal block and the next block (the band crosses each block boundary) have pairs in the window.
      for (const step of layout.pairSteps) expect([rank, (rank + 1) % 4]).toContain(step.colBlock);
      expect(layout.exchange.receives.map((r) => r.block).every((b) => b === (rank + 1) % 4 || b === (rank + 3) % 4)).toBe(true);
    }
    // Block 3 (the last) meets block 0 only across the ends of the genome: no step computes it.
    expect(rankLayout(job, 3).pairSteps.map((s) => s.colBlock)).toEqual([3]);
  });
});
