// SPEC §9 histograms of whole runs on the host backends against the naive reference (naiveHistogram.ts: SPEC §3
// values of every tuple from the field codes, bucketed as §9 says): CCC and DUO, 2-way and 3-way, dense and sparse,
// ref and cpu, over npv, npf, npr, phases and stages; runs cut into phases add up to the whole; thread counts and
// thresholds change nothing; the self-check; analyses that declare no histogram are refused.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { checkJob, runJob, type DecompositionSpec, type JobSpec } from '../../src/engine/index.js';
import { CARRIER_ANALYSIS_MODULE, CARRIER_ANALYSIS_NAME } from '../analyses/carrierAnalysis.js';
import { naiveHistogramFile } from '../helpers/naiveHistogram.js';
import { makeJob, type JobOptions } from './jobFixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-histograms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileIdx = 0;
/** A job of `o` that writes its histograms to a fresh file. */
function histogramJob(o: JobOptions): JobSpec {
  return { ...makeJob(o), histogramPath: join(dir, `h${fileIdx++}.tsv`) };
}

/** Runs `job` and returns its histogram file's text. */
async function histogramText(job: JobSpec): Promise<string> {
  const result = await runJob(job);
  expect(result.histogram?.path).toBe(job.histogramPath);
  return readFileSync(job.histogramPath as string, 'utf8');
}

/** The counts of a file's text, column by column (its header and labels left out). */
function fileCounts(text: string): bigint[][] {
  const rows = text.trimEnd().split('\n').slice(1).map((line) => line.split('\t').slice(1).map(BigInt));
  return rows[0].map((_, c) => rows.map((row) => row[c]));
}

function binomial(n: number, k: number): bigint {
  let x = 1n;
  for (let t = 0; t < k; t++) x = (x * BigInt(n - t)) / BigInt(t + 1);
  return x;
}

/** CoMet's self-check: the columns but the last hold every tuple's 2^way entries once. */
function expectSelfCheck(text: string, numVector: number, numWay: 2 | 3): void {
  const columns = fileCounts(text);
  const counted = columns.slice(0, -1).flat().reduce((a, b) => a + b, 0n);
  expect(counted).toBe(binomial(numVector, numWay) * BigInt(2 ** numWay));
}

interface Kind {
  readonly metric: 'ccc' | 'duo';
  readonly numWay: 2 | 3;
  readonly sparse: boolean;
  readonly numVector: number;
  readonly numField: number;
}

const KINDS: readonly Kind[] = [
  { metric: 'ccc', numWay: 2, sparse: false, numVector: 23, numField: 131 },
  { metric: 'ccc', numWay: 2, sparse: true, numVector: 17, numField: 65 },
  { metric: 'duo', numWay: 2, sparse: false, numVector: 19, numField: 33 },
  { metric: 'duo', numWay: 2, sparse: true, numVector: 21, numField: 57 },
  { metric: 'ccc', numWay: 3, sparse: false, numVector: 13, numField: 97 },
  { metric: 'ccc', numWay: 3, sparse: true, numVector: 12, numField: 45 },
  { metric: 'duo', numWay: 3, sparse: true, numVector: 11, numField: 31 },
  { metric: 'duo', numWay: 3, sparse: false, numVector: 10, numField: 200 },
];

/** Decompositions each kind runs under (2-way: phases; 3-way: stages). */
function decompositionsOf(kind: Kind): Partial<DecompositionSpec>[] {
  const cut = kind.numWay === 2 ? { numPhase: 2 } : { numStage: 3 };
  const alone = kind.numWay === 2 ? { numProcVector: 2, numPhase: 2 } : { numStage: 2 };
  return [{}, { numProcVector: 2, numProcField: 2 }, { numProcVector: 3, numProcRepl: 2, ...cut }, alone];
}

const naiveFiles = new Map<Kind, string>();
function naiveFileOf(kind: Kind): string {
  let text = naiveFiles.get(kind);
  if (text === undefined) {
    const spec = makeJob(kind).metricSpec;
    text = naiveHistogramFile(spec, kind.numVector, kind.numField, (v, f) => randomProblemCode(v, f, kind.numField));
    naiveFiles.set(kind, text);
  }
  return text;
}

const describeKind = (k: Kind): string => `${k.metric} ${k.numWay}-way ${k.sparse ? 'sparse' : 'dense'} nv ${k.numVector} nf ${k.numField}`;

describe('histograms equal the naive reference', () => {
  for (const kind of KINDS) {
    it(`${describeKind(kind)}: ref`, async () => {
      const text = await histogramText(histogramJob({ ...kind, backend: 'ref' }));
      expect(text).toBe(naiveFileOf(kind));
      expectSelfCheck(text, kind.numVector, kind.numWay);
    });
    for (const decomposition of decompositionsOf(kind)) {
      it(`${describeKind(kind)}: cpu ${JSON.stringify(decomposition)}`, async () => {
        expect(await histogramText(histogramJob({ ...kind, backend: 'cpu', decomposition }))).toBe(naiveFileOf(kind));
      });
    }
  }

  it('a threshold does not change the histogram (every value counts, passing or not)', async () => {
    const kind = KINDS[1];
    for (const threshold of [0.5, 4]) {
      const result = await runJob(histogramJob({ ...kind, threshold }));
      // Some entries (all at 4) fail the threshold, yet count in the histogram.
      expect(result.entries).toBeLessThan(4 * 136);
      expect(readFileSync(result.histogram?.path as string, 'utf8')).toBe(naiveFileOf(kind));
    }
  });

  it('runs cut into phases (2-way) or stages (3-way), one run each, add up to the whole run', async () => {
    for (const kind of [KINDS[0], KINDS[5]]) {
      const parts = kind.numWay === 2 ? { numPhase: 3 } : { numStage: 3 };
      let sum: bigint[][] | null = null;
      for (let p = 0; p < 3; p++) {
        const only = kind.numWay === 2 ? { phaseMin: p, phaseMax: p } : { stageMin: p, stageMax: p };
        const counts = fileCounts(await histogramText(histogramJob({ ...kind, decomposition: { numProcVector: 4, ...parts, ...only } })));
        sum = sum === null ? counts : sum.map((column, c) => column.map((x, b) => x + counts[c][b]));
      }
      expect(sum).toEqual(fileCounts(naiveFileOf(kind)));
    }
  });
});

describe('histograms do not depend on the thread count', () => {
  // Large enough that two threads finalize on the pool (several tasks per panel or batch; hostFinalizer.ts).
  const cases: readonly Kind[] = [
    { metric: 'ccc', numWay: 2, sparse: true, numVector: 800, numField: 40 },
    { metric: 'duo', numWay: 3, sparse: false, numVector: 100, numField: 24 },
  ];
  for (const kind of cases) {
    it(`${describeKind(kind)}: 1 and 2 threads write the same file`, async () => {
      const one = await histogramText(histogramJob({ ...kind, numThreads: 1 }));
      const two = await histogramText(histogramJob({ ...kind, numThreads: 2 }));
      expect(two).toBe(one);
      expectSelfCheck(one, kind.numVector, kind.numWay);
    });
  }
});

describe('histogram jobs refused', () => {
  it('an analysis that declares no histogram', async () => {
    const job: JobSpec = { ...histogramJob({ metric: CARRIER_ANALYSIS_NAME, numVector: 8, numField: 16 }), analysisModule: CARRIER_ANALYSIS_MODULE };
    await expect(checkJob(job)).rejects.toThrow(`--histograms: --metric ${CARRIER_ANALYSIS_NAME} declares no histogram`);
    expect(existsSync(job.histogramPath as string)).toBe(false);
  });

  it('an existing file without force; replaced with force', async () => {
    const job = histogramJob({ numVector: 9, numField: 20 });
    await runJob(job);
    await expect(runJob(job)).rejects.toThrow(`histograms file ${job.histogramPath} already exists; use --force to overwrite`);
    const forced = await histogramText({ ...job, force: true });
    expect(forced).toBe(naiveHistogramFile(job.metricSpec, 9, 20, (v, f) => randomProblemCode(v, f, 20)));
  });

  it('a multiplier that gives no bucket', async () => {
    const job = histogramJob({ numVector: 9, numField: 20 });
    const tiny: JobSpec = { ...job, metricSpec: { ...job.metricSpec, multiplier: 0.0005 } };
    await expect(checkJob(tiny)).rejects.toThrow('--histograms needs (int)(1000·multiplier) ≥ 1 buckets');
  });
});
