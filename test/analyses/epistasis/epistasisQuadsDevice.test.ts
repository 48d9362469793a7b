// 4-way epistasis scored on the GPU (epistasisQuadProgram.ts, pipeline4Device.ts) against the CPU path and the
// brute-force reference: top-N lists of K2, MI and IG with and without missing calls, one checksum across backends and
// decompositions (several tiles and parts: the device's rectangles merge a part's tiles), and --score-threshold files
// byte for byte the CPU run's over 2 ranks (records of several tiles of one device request in the CPU run's order).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchEpistasis, type EpistasisSearchOptions } from '../../../src/cli/epistasis/epistasisSearch.js';
import { writeThresholdRecords } from '../../../src/cli/epistasis/thresholdRecords.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { naiveEpistasis, randomCaseControlData, type CaseControlData, type Score } from './naiveEpistasis.js';
import { decomposition, preparedCaseControl, type Decomposition, type SearchFiles } from './epistasisFiles.js';
import { expectTopOf } from './expectTop.js';
import { quadColumnPlaneLimit } from '../../../src/engine/pipeline/pipeline4Device.js';

const gate = await webgpuGate();
const dir = mkdtempSync(join(tmpdir(), 'epistasis4-device-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Files = SearchFiles;

const prepared = (name: string, data: CaseControlData): Promise<Files> => preparedCaseControl(dir, name, data);

function options(files: Files, score: Score, top: number, backend: 'cpu' | 'webgpu', parts: Partial<Decomposition> = {}): EpistasisSearchOptions {
  return { ...files, order: 4, score, top, backend, numThreads: 2, decomposition: decomposition(parts), finalize: backend === 'webgpu' ? 'auto' : 'host' };
}

const choose4 = (n: number): number => (n * (n - 1) * (n - 2) * (n - 3)) / 24;

describe.skipIf(!gate.available)(`4-way epistasis scored on the device = cpu = reference, on ${gate.description}`, () => {
  // 11 SNPs × 45 samples (not a multiple of 32), 3% missing calls, ~8% missing phenotypes; and 10 × 70 without missing calls.
  const sparse = randomCaseControlData(11, 45, 21, 0.03);
  const dense = randomCaseControlData(10, 70, 22, 0);
  const sets = [[sparse, prepared('sparse', sparse)], [dense, prepared('dense', dense)]] as const;

  it('K2, MI, IG top 8, with and without missing calls: the same lists, tables, checksum; every quadruple on the device', async () => {
    for (const [data, filesPromise] of sets) {
      const files = await filesPromise;
      for (const score of ['k2', 'mi', 'ig'] as const) {
        const cpu = await searchEpistasis(options(files, score, 8, 'cpu'));
        const gpu = await searchEpistasis(options(files, score, 8, 'webgpu'));
        expect(gpu.hits).toEqual(cpu.hits);
        expectTopOf(gpu, naiveEpistasis(data, 4, score), 8);
        expect(gpu.run.checksum).toEqual(cpu.run.checksum);
        expect(gpu.run.deviceFinalizedQuads).toBe(choose4(data.numSnp));
        expect(gpu.run.deviceRecordsReadBack).toBeGreaterThan(0);
      }
    }
  }, 900_000);

  it('several tiles and parts (26 SNPs: 3 × 2 tiles) under npv 3 and npr 2 × phases 2: one checksum, the same list', async () => {
    const data = randomCaseControlData(26, 40, 23, 0.01);
    const files = await prepared('tiles', data);
    const want = naiveEpistasis(data, 4, 'k2');
    const cpu = await searchEpistasis(options(files, 'k2', 6, 'cpu'));
    expectTopOf(cpu, want, 6);
    for (const parts of [{}, { numProcVector: 3 }, { numProcRepl: 2, numPhase: 2 }] as const) {
      const gpu = await searchEpistasis(options(files, 'k2', 6, 'webgpu', parts));
      expect(gpu.hits).toEqual(cpu.hits);
      expect(gpu.run.checksum).toBe(cpu.run.checksum);
      expect(gpu.run.entries).toBe(choose4(26));
      expect(gpu.run.deviceFinalizedQuads).toBe(choose4(26));
    }
    // Records of several tiles from one device request, in the CPU run's tile order in each rank's file.
    let numPast = 60;
    while (Math.abs(want[numPast - 1].score - want[numPast].score) < 1e-6) numPast++;
    const scoreThreshold = (want[numPast - 1].score + want[numPast].score) / 2;
    const written = await Promise.all((['cpu', 'webgpu'] as const).map((backend) => writeThresholdRecords(options(files, 'k2', 1, backend, { numProcVector: 2 }), {
      stub: join(dir, `threshold-tiles-${backend}`), scoreThreshold, force: false, input: { kind: 'prepared', givenPath: files.packedPath, sidecarPath: null },
    })));
    expect(written[0].numRecords).toBe(numPast);
    expect(written[1].files.map((file) => readFileSync(file))).toEqual(written[0].files.map((file) => readFileSync(file)));
  }, 900_000);

  it('column-pair planes in chunks (a limit of one tile\'s columns): top lists on the device, threshold files on the host', async () => {
    const data = randomCaseControlData(26, 40, 24, 0.01);
    const files = await prepared('chunks', data);
    const want = naiveEpistasis(data, 4, 'k2');
    const cpu = await searchEpistasis(options(files, 'k2', 6, 'cpu'));
    const limit = quadColumnPlaneLimit.maxBytes;
    quadColumnPlaneLimit.maxBytes = 1;
    try {
      for (const parts of [{}, { numProcVector: 3 }] as const) {
        const gpu = await searchEpistasis(options(files, 'k2', 6, 'webgpu', parts));
        expectTopOf(gpu, want, 6);
        expect(gpu.hits).toEqual(cpu.hits);
        expect(gpu.run.checksum).toBe(cpu.run.checksum);
        expect(gpu.run.deviceFinalizedQuads).toBe(choose4(26));
      }
      // A threshold run's files keep the plan's tile order, which chunks would change: the host finalizes it.
      const scoreThreshold = (want[9].score + want[10].score) / 2;
      const written = await Promise.all((['cpu', 'webgpu'] as const).map((backend) => writeThresholdRecords(options(files, 'k2', 1, backend), {
        stub: join(dir, `threshold-chunks-${backend}`), scoreThreshold, force: false, input: { kind: 'prepared', givenPath: files.packedPath, sidecarPath: null },
      })));
      expect(written[1].run.deviceFinalizedQuads).toBe(0);
      expect(written[1].files.map((file) => readFileSync(file))).toEqual(written[0].files.map((file) => readFileSync(file)));
    } finally {
      quadColumnPlaneLimit.maxBytes = limit;
    }
  }, 900_000);

  it('--score-threshold records: the same files from the device as from cpu, over 2 ranks, = the reference set', async () => {
    for (const [data, filesPromise, score] of [[sets[0][0], sets[0][1], 'k2'], [sets[1][0], sets[1][1], 'ig']] as const) {
      const files = await filesPromise;
      const want = naiveEpistasis(data, 4, score);
      let numPast = 20;
      while (Math.abs(want[numPast - 1].score - want[numPast].score) < 1e-6) numPast++;
      const scoreThreshold = (want[numPast - 1].score + want[numPast].score) / 2;
      const written = await Promise.all((['cpu', 'webgpu'] as const).map((backend) => writeThresholdRecords(options(files, score, 1, backend, { numProcVector: 2 }), {
        stub: join(dir, `threshold-${score}-${backend}`), scoreThreshold, force: false,
        input: { kind: 'prepared', givenPath: files.packedPath, sidecarPath: null },
      })));
      expect(written[0].numRecords).toBe(numPast);
      expect(written[1].run.deviceFinalizedQuads).toBe(choose4(data.numSnp));
      expect(written[1].files.map((file) => readFileSync(file))).toEqual(written[0].files.map((file) => readFileSync(file)));
    }
  }, 600_000);
});
