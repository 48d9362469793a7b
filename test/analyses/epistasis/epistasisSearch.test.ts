// The epistasis search against the brute-force reference: top-N lists, scores and tables of 2- and 3-way K2, MI and
// IG, with missing calls and phenotypes, ragged sizes, on ref, cpu and webgpu (host finalize, and 2-way and 3-way scores
// on the device) and under npv, npr, phases and stages, with one checksum for every decomposition; and the dense (no
// missing call) 2-way path, whose products with P come from per-vector counts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchEpistasis, type EpistasisSearchOptions, type EpistasisSearchResult } from '../../../src/cli/epistasis/epistasisSearch.js';
import { writeThresholdRecords } from '../../../src/cli/epistasis/thresholdRecords.js';
import { SELECT_ALL } from '../../../src/io/index.js';
import { prepareGenotypeFile } from '../../../src/cli/genotypePreparation.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { naiveEpistasis, randomCaseControlData, type CaseControlData, type Score } from './naiveEpistasis.js';
import { decomposition, preparedCaseControl, type Decomposition, type SearchFiles } from './epistasisFiles.js';
import { expectTopOf } from './expectTop.js';

const dir = mkdtempSync(join(tmpdir(), 'epistasis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const prepared = (name: string, data: CaseControlData): Promise<SearchFiles> => preparedCaseControl(dir, name, data);

/** The search's list is a top-N of the brute-force reference of `data` (expectTop.ts). */
function expectTopOfData(result: EpistasisSearchResult, data: CaseControlData, order: 2 | 3, score: Score, top: number): void {
  expectTopOf(result, naiveEpistasis(data, order, score), top);
}

function search(files: SearchFiles, order: 2 | 3, score: Score, top: number,
  backend: EpistasisSearchOptions['backend'], parts: Partial<Decomposition> = {}, finalize: 'host' | 'auto' = 'host'): Promise<EpistasisSearchResult> {
  return searchEpistasis({ ...files, order, score, top, backend, numThreads: 2, decomposition: decomposition(parts), finalize });
}

describe('epistasis search against the brute-force reference', () => {
  // 13 SNPs × 45 samples (not a multiple of 32), 2% missing calls, ~8% missing phenotypes.
  const data = randomCaseControlData(13, 45, 5, 0.02);
  const filesPromise = prepared('ragged', data);

  it('orders the samples [controls | cases] and leaves out missing phenotypes', async () => {
    const { sidecar } = await filesPromise;
    const numControls = data.phenotypes.filter((p) => p === 1).length;
    const numCases = data.phenotypes.filter((p) => p === 2).length;
    expect(sidecar.caseControl).toMatchObject({ numControls, numCases, numMissingPhenotype: 45 - numControls - numCases });
    expect(sidecar.numField).toBe(numControls + numCases);
    const plain = await prepareGenotypeFile(join(dir, 'ragged'), join(dir, 'plain.packed'), { onBadSite: 'error', permuteSeed: null, selection: SELECT_ALL });
    const wantOrder = [1, 2].flatMap((cls) => data.phenotypes.flatMap((p, s) => (p === cls ? [plain.sampleIds[s]] : [])));
    expect(sidecar.sampleIds).toEqual(wantOrder);
  });

  for (const order of [2, 3] as const) {
    for (const score of ['k2', 'mi', 'ig'] as const) {
      it(`${order}-way ${score}: ref = cpu = reference, top 12`, async () => {
        const files = await filesPromise;
        const ref = await search(files, order, score, 12, 'ref');
        expectTopOfData(ref, data, order, score, 12);
        const cpu = await search(files, order, score, 12, 'cpu');
        expect(cpu.hits).toEqual(ref.hits);
      });
    }
  }

  it('2-way under npv 3, npr 2, npv 4 × phases 2 and 3-way under npv 2, stages 3, phases 2: the same lists', async () => {
    const files = await filesPromise;
    for (const [order, parts] of [
      [2, { numProcVector: 3 }], [2, { numProcVector: 2, numProcRepl: 2 }], [2, { numProcVector: 4, numPhase: 2 }],
      [3, { numProcVector: 2 }], [3, { numStage: 3 }], [3, { numProcVector: 2, numPhase: 2 }],
    ] as const) {
      const result = await search(files, order, 'k2', 7, 'cpu', parts);
      expectTopOfData(result, data, order, 'k2', 7);
    }
  });

  it('one checksum of every engine value under every decomposition (cells in canonical order, whichever SNP comes first)', async () => {
    // With missing calls, and dense (2-way's cells from 2^2 products per class).
    for (const files of [await filesPromise, await prepared('dense-checksum', randomCaseControlData(12, 66, 13, 0))]) {
      for (const [order, decompositions] of [
        [2, [{}, { numProcVector: 3 }, { numProcVector: 4, numPhase: 2 }]],
        [3, [{}, { numProcVector: 3 }, { numProcVector: 2, numStage: 2 }, { numProcVector: 2, numProcRepl: 2, numPhase: 2 }]],
      ] as const) {
        for (const score of ['k2', 'mi'] as const) {
          const checksums = new Set<string>();
          for (const parts of decompositions) checksums.add((await search(files, order, score, 3, 'cpu', parts)).run.checksum);
          expect(checksums.size).toBe(1);
        }
      }
    }
  });

  it('every tuple when N exceeds their number; a top-1', async () => {
    const files = await filesPromise;
    const all = await search(files, 2, 'mi', 500, 'cpu');
    expect(all.hits.length).toBe(78);
    expectTopOfData(all, data, 2, 'mi', 500);
    expectTopOfData(await search(files, 3, 'ig', 1, 'cpu'), data, 3, 'ig', 1);
  });

  it('dense data (no missing call): 2-way from 2^2 products per class and inclusion–exclusion, 3-way too', async () => {
    const dense = randomCaseControlData(11, 70, 9, 0);
    const files = await prepared('dense', dense);
    expect(files.sidecar.numMissingCalls).toBe(0);
    for (const score of ['k2', 'mi', 'ig'] as const) expectTopOfData(await search(files, 2, score, 9, 'cpu', { numProcVector: 2 }), dense, 2, score, 9);
    expectTopOfData(await search(files, 3, 'k2', 9, 'ref'), dense, 3, 'k2', 9);
  });

  it('webgpu with 2-way scores on the device = cpu: K2, MI, IG, with and without missing calls, under npv, npr and phases', async (context) => {
    const gate = await webgpuGate();
    if (!gate.available) context.skip();
    // 23 SNPs × 77 samples without missing calls: 253 pairs, more than the 64 + N candidates a search asks for.
    const dense = randomCaseControlData(23, 77, 11, 0);
    const sets = [await filesPromise, await prepared('dense-device', dense)];
    for (const [set, files] of sets.entries()) {
      for (const score of ['k2', 'mi', 'ig'] as const) {
        for (const parts of [{}, { numProcVector: 3 }, { numProcVector: 2, numPhase: 2 }, { numProcRepl: 2 }]) {
          const cpu = await search(files, 2, score, 6, 'cpu', parts);
          const gpu = await search(files, 2, score, 6, 'webgpu', parts, 'auto');
          expect(gpu.hits).toEqual(cpu.hits);
          expectTopOfData(gpu, set === 0 ? data : dense, 2, score, 6);
          // The device scored every pair (same checksum of every engine value) and returned records: finalized there.
          const numSnp = files.sidecar.numVector;
          expect(gpu.run.deviceFinalizedPairs).toBe((numSnp * (numSnp - 1)) / 2);
          expect(gpu.run.checksum).toEqual(cpu.run.checksum);
          expect(gpu.run.deviceRecordsReadBack).toBeGreaterThan(0);
        }
      }
    }
  }, 600_000);

  it('webgpu with 3-way scores on the device = cpu: K2, MI, IG, with and without missing calls, under npv 3, stages, phases and npr 2', async (context) => {
    const gate = await webgpuGate();
    if (!gate.available) context.skip();
    // 14 SNPs × 77 samples without missing calls: 364 triples, more than the 64 + N candidates a search asks for.
    const dense = randomCaseControlData(14, 77, 12, 0);
    const sets = [await filesPromise, await prepared('dense-device-3', dense)];
    for (const [set, files] of sets.entries()) {
      for (const score of ['k2', 'mi', 'ig'] as const) {
        for (const parts of [{}, { numProcVector: 3 }, { numProcVector: 2, numStage: 3, numPhase: 2 }, { numProcVector: 2, numProcRepl: 2 }]) {
          const cpu = await search(files, 3, score, 6, 'cpu', parts);
          const gpu = await search(files, 3, score, 6, 'webgpu', parts, 'auto');
          expect(gpu.hits).toEqual(cpu.hits);
          expectTopOfData(gpu, set === 0 ? data : dense, 3, score, 6);
          // The device scored every triple (same checksum of every engine value) and returned records: finalized there.
          const numSnp = files.sidecar.numVector;
          expect(gpu.run.deviceFinalizedTriples).toBe((numSnp * (numSnp - 1) * (numSnp - 2)) / 6);
          expect(gpu.run.checksum).toEqual(cpu.run.checksum);
          expect(gpu.run.deviceRecordsReadBack).toBeGreaterThan(0);
        }
      }
    }
  }, 900_000);

  it('--score-threshold records: the same files from webgpu with scores on the device as from cpu, 2-way and 3-way', async (context) => {
    const gate = await webgpuGate();
    if (!gate.available) context.skip();
    const files = await filesPromise;
    for (const [order, score, numProcVector, numTuples] of [[2, 'k2', 2, 78], [2, 'ig', 2, 78], [3, 'k2', 3, 286], [3, 'mi', 2, 286]] as const) {
      const want = naiveEpistasis(data, order, score);
      // About 20 tuples past the threshold, halfway between two distinct scores (ties would sit on it).
      let numPast = 20;
      while (Math.abs(want[numPast - 1].score - want[numPast].score) < 1e-9) numPast++;
      const scoreThreshold = (want[numPast - 1].score + want[numPast].score) / 2;
      const written = await Promise.all((['cpu', 'webgpu'] as const).map(async (backend) => {
        const options: EpistasisSearchOptions = {
          ...files, order, score, top: 1, backend, numThreads: 2, decomposition: decomposition({ numProcVector }), finalize: 'auto',
        };
        const stub = join(dir, `threshold-${order}-${score}-${backend}`);
        return writeThresholdRecords(options, { stub, scoreThreshold, force: false, input: { kind: 'prepared', givenPath: files.packedPath, sidecarPath: null } });
      }));
      expect(written[0].numRecords).toBe(numPast);
      expect(order === 2 ? written[1].run.deviceFinalizedPairs : written[1].run.deviceFinalizedTriples).toBe(numTuples);
      expect(written[1].files.map((file) => readFileSync(file))).toEqual(written[0].files.map((file) => readFileSync(file)));
    }
  }, 600_000);

  it('webgpu (host finalize) = cpu, 2-way and 3-way', async (context) => {
    const gate = await webgpuGate();
    if (!gate.available) context.skip();
    const files = await filesPromise;
    for (const order of [2, 3] as const) {
      const cpu = await search(files, order, 'k2', 10, 'cpu');
      const gpu = await search(files, order, 'k2', 10, 'webgpu');
      expect(gpu.hits).toEqual(cpu.hits);
    }
  }, 120_000);
});
