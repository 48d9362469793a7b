// 4-way epistasis (mGEMM4) against the brute-force reference: top-N lists, scores and tables of K2, MI and IG, with
// missing calls (every product from the GEMM) and without (genotype column pairs plus row pairs × vectors), ragged
// sizes, on ref, cpu and webgpu (host finalize) and under npv, npr, phases and stages; threshold records = the naive
// set; a planted pure 4-way interaction found as the top-1 by K2.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchEpistasis, type EpistasisSearchOptions } from '../../../src/cli/epistasis/epistasisSearch.js';
import { writeThresholdRecords } from '../../../src/cli/epistasis/thresholdRecords.js';
import { readMetricsFileRecords } from '../../../src/io/index.js';
import { simulateEpistasis } from '../../../tools/lib/epistasisSimulation.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { naiveEpistasis, randomCaseControlData, type CaseControlData, type Score } from './naiveEpistasis.js';
import { decomposition, prepareCaseControl, preparedCaseControl, type Decomposition, type SearchFiles } from './epistasisFiles.js';
import { expectTopOf } from './expectTop.js';

const dir = mkdtempSync(join(tmpdir(), 'epistasis4-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Files = SearchFiles;

const prepared = (name: string, data: CaseControlData): Promise<Files> => preparedCaseControl(dir, name, data);

function options(
  files: Files, score: Score, top: number, backend: EpistasisSearchOptions['backend'], parts: Partial<Decomposition> = {}, numThreads = 2,
): EpistasisSearchOptions {
  return { ...files, order: 4, score, top, backend, numThreads, decomposition: decomposition(parts), finalize: 'host' };
}

const md5Of = (path: string): string => createHash('md5').update(readFileSync(path)).digest('hex');

describe('4-way epistasis against the brute-force reference', () => {
  // 9 SNPs × 45 samples (not a multiple of 32), 3% missing calls, ~8% missing phenotypes: 126 quadruples.
  const sparse = randomCaseControlData(9, 45, 11, 0.03);
  const sparseFiles = prepared('sparse', sparse);
  // No missing call: the dense path (column pairs of genotype planes, the rest from row pairs × vectors).
  const dense = randomCaseControlData(10, 70, 12, 0);
  const denseFiles = prepared('dense', dense);

  for (const score of ['k2', 'mi', 'ig'] as const) {
    it(`${score}: ref = cpu = reference, with and without missing calls`, async () => {
      for (const [data, filesPromise] of [[sparse, sparseFiles], [dense, denseFiles]] as const) {
        const files = await filesPromise;
        expect(files.sidecar.numMissingCalls > 0).toBe(data === sparse);
        const want = naiveEpistasis(data, 4, score);
        const ref = await searchEpistasis(options(files, score, 15, 'ref'));
        expectTopOf(ref, want, 15);
        const cpu = await searchEpistasis(options(files, score, 15, 'cpu'));
        expect(cpu.hits).toEqual(ref.hits);
      }
    });
  }

  it('every quadruple when N exceeds their number', async () => {
    const files = await sparseFiles;
    const all = await searchEpistasis(options(files, 'ig', 500, 'cpu'));
    expect(all.hits.length).toBe(126);
    expectTopOf(all, naiveEpistasis(sparse, 4, 'ig'), 500);
  });

  it('several tiles under npv 3, npr 2 × phases 2, stages 3: the same lists', async () => {
    // 26 SNPs: 325 pairs, so 3 row tiles × 2 column tiles of the quad plan, spread over the parts.
    const data = randomCaseControlData(26, 40, 13, 0.01);
    const files = await prepared('tiles', data);
    const want = naiveEpistasis(data, 4, 'k2');
    const one = await searchEpistasis(options(files, 'k2', 10, 'cpu'));
    expectTopOf(one, want, 10);
    for (const parts of [{ numProcVector: 3 }, { numProcRepl: 2, numPhase: 2 }, { numStage: 3 }] as const) {
      const result = await searchEpistasis(options(files, 'k2', 10, 'cpu', parts));
      expect(result.hits).toEqual(one.hits);
      expect(result.run.comparisons).toBe(14950 * files.sidecar.numField);
      // Every quadruple's value in the checksum (SPEC §5 uid of its four sorted indices), once whatever the decomposition.
      expect(result.run.entries).toBe(14950);
      expect(result.run.checksum).toBe(one.run.checksum);
    }
  }, 120_000);

  it('threshold records: exactly the tuples past the threshold, with their scores, over 2 ranks', async () => {
    const files = await denseFiles;
    for (const score of ['k2', 'mi'] as const) {
      const want = naiveEpistasis(dense, 4, score);
      // Between the n-th and (n+1)-th strongest, n ≥ 20 where they differ clearly (small tables tie often), so the
      // set is fixed whatever the rounding.
      let n = 20;
      while (Math.abs(want[n - 1].score - want[n].score) < 1e-6) n++;
      const threshold = (want[n - 1].score + want[n].score) / 2;
      const stub = join(dir, `records-${score}`);
      const written = await writeThresholdRecords(options(files, score, 1, 'cpu', { numProcVector: 2 }), {
        stub, scoreThreshold: threshold, force: false, input: { kind: 'bed', givenPath: join(dir, 'dense'), sidecarPath: null },
      });
      expect(written.files).toHaveLength(2);
      const got = written.files.flatMap((file) => [...readMetricsFileRecords(file, 4)])
        .map((record) => ({ snps: [...record.coords].sort((a, b) => a - b).join(','), value: record.value }));
      expect(got.map((r) => r.snps).sort()).toEqual(want.slice(0, n).map((t) => t.snps.join(',')).sort());
      const byTuple = new Map(want.map((t) => [t.snps.join(','), t.score]));
      for (const record of got) expect(record.value).toBeCloseTo(Math.fround(byTuple.get(record.snps)!), 3);
    }
  });

  it('--threads 1, 2, 3 and --backend ref: the same checksum, top list and threshold-record files (md5)', async () => {
    // 32 SNPs: 496 pairs, tiles of up to 32,768 quadruples, the larger ones (two here) cut into row ranges on the
    // finalize pool (at least 4096 quadruples per task) whose records and checksum parts come back in task order.
    for (const [name, missingRate, score] of [['threads-sparse', 0.02, 'k2'], ['threads-dense', 0, 'ig']] as const) {
      const files = await prepared(name, randomCaseControlData(32, 70, 14, missingRate));
      {
        const one = await searchEpistasis(options(files, score, 500, 'cpu', {}, 1));
        expect(one.run.entries).toBe(35960);
        // The 500th strongest score: a threshold that writes ~500 records from many tiles and tasks.
        const scoreThreshold = one.hits[one.hits.length - 1].score;
        const md5s: string[] = [];
        for (const [backend, numThreads] of [['cpu', 1], ['cpu', 2], ['cpu', 3], ['ref', 2]] as const) {
          const result = await searchEpistasis(options(files, score, 500, backend, {}, numThreads));
          expect(result.run.checksum).toBe(one.run.checksum);
          expect(result.hits).toEqual(one.hits);
          const stub = join(dir, `${name}-${score}-${backend}-${numThreads}`);
          const written = await writeThresholdRecords(options(files, score, 1, backend, {}, numThreads), {
            stub, scoreThreshold, force: false, input: { kind: 'bed', givenPath: join(dir, name), sidecarPath: null },
          });
          expect(written.numRecords).toBeGreaterThanOrEqual(500);
          md5s.push(md5Of(written.files[0]));
        }
        expect(new Set(md5s).size).toBe(1);
      }
    }
  }, 240_000);

  it('a planted pure 4-way interaction (MAF 0.5, h² 0.05, 20 SNPs × 2000 samples) is the K2 top-1', async () => {
    const prefix = join(dir, 'planted');
    simulateEpistasis(prefix, {
      numSnp: 20, numCases: 1000, numControls: 1000, maf: 0.5, prevalence: 0.5, heritability: 0.05, model: 'pure',
      planted: [3, 8, 12, 17], missingRate: 0, seed: 1,
    });
    const packedPath = `${prefix}.packed`;
    const files = { packedPath, sidecar: await prepareCaseControl(prefix, packedPath) };
    const result = await searchEpistasis(options(files, 'k2', 3, 'cpu'));
    expect(result.hits[0].vectors).toEqual([3, 8, 12, 17]);
  }, 60_000);

  it('webgpu (host finalize) = cpu', async (context) => {
    const gate = await webgpuGate();
    if (!gate.available) context.skip();
    for (const filesPromise of [sparseFiles, denseFiles]) {
      const files = await filesPromise;
      const cpu = await searchEpistasis(options(files, 'k2', 10, 'cpu'));
      const gpu = await searchEpistasis(options(files, 'k2', 10, 'webgpu'));
      expect(gpu.hits).toEqual(cpu.hits);
    }
  }, 120_000);
});
