// Czekanowski runs against the naive oracle: ragged sizes, real (non-integer) input files in both precisions under
// several decompositions and every backend (bit-exact: sums in field order; webgpu where an adapter exists),
// threshold-filtered records, bad values and refusals.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runJob } from '../../../src/engine/index.js';
import { readMetricsFileRecords } from '../../../src/io/metricsFileReader.js';
import { naiveCzekanowski } from './naiveCzekanowski.js';
import { czekanowskiJob, seededRealValues, writeRealFile } from './czekanowskiJobs.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';

const gate = await webgpuGate();
const WEBGPU_RUNS = gate.available ? ([['webgpu', { numProcVector: 2 }], ['webgpu', { numProcVector: 3, numProcRepl: 2 }]] as const) : [];

const dir = mkdtempSync(join(tmpdir(), 'czekanowski-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Czekanowski against the naive oracle', () => {
  for (const numWay of [2, 3] as const) {
    for (const precision of ['double', 'single'] as const) {
      it(`${numWay}-way ragged random problem (nv 13, nf 37), ${precision}, npv 1–4`, async () => {
        const want = naiveCzekanowski({ numVector: 13, numField: 37, numWay, precision, values: 'random' });
        for (const numProcVector of [1, 2, 3, 4]) {
          const result = await runJob(czekanowskiJob({ numWay, numVector: 13, numField: 37, precision, decomposition: { numProcVector }, numThreads: 2 }));
          expect(result.checksum).toBe(want.checksum);
        }
      });

      it(`${numWay}-way real-valued ${precision} input file (nf 600 crosses a field block) is exact under npv, npr and backends`, async () => {
        const numVector = numWay === 2 ? 11 : 9;
        const numField = 600;
        const values = seededRealValues(numVector * numField, 7 + numWay, precision);
        const path = join(dir, `real-${numWay}-${precision}.bin`);
        writeRealFile(path, values, precision);
        const want = naiveCzekanowski({ numVector, numField, numWay, precision, values });
        for (const [backend, decomposition] of [['ref', {}], ['cpu', { numProcVector: 3 }], ['cpu', { numProcVector: 2, numProcRepl: 2 }], ...WEBGPU_RUNS] as const) {
          const result = await runJob(czekanowskiJob({ numWay, numVector, numField, precision, backend, decomposition, source: { kind: 'file', path }, numThreads: 2 }));
          expect(result.checksum).toBe(want.checksum);
        }
      });
    }

    for (const backend of gate.available ? (['cpu', 'webgpu'] as const) : (['cpu'] as const)) it(`${numWay}-way threshold filters the records only (${backend}): checksum unchanged, records are naive values > t at plain indices`, async () => {
      const numVector = 12;
      const want = naiveCzekanowski({ numVector, numField: 50, numWay, precision: 'double', values: 'random' });
      const t = 0.8;
      const stub = join(dir, `threshold-${numWay}-${backend}`);
      const result = await runJob(czekanowskiJob({ numWay, numVector, numField: 50, precision: 'double', threshold: t, outputStub: stub, decomposition: { numProcVector: 2 }, backend }));
      expect(result.checksum).toBe(want.checksum);
      expect(result.entries).toBe(want.values.size);
      const got = new Map<string, number>();
      for (const file of result.outputFiles) {
        for (const record of readMetricsFileRecords(file, numWay)) got.set([...record.coords].sort((a, b) => a - b).join(','), record.value);
      }
      const expected = [...want.values].filter(([, v]) => Math.fround(v) > t).map(([key, v]) => [key, Math.fround(v)] as const);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(want.values.size);
      expect(new Map(expected)).toEqual(got);
    });
  }
});

describe('Czekanowski refusals', () => {
  const base = { numVector: 3, numField: 4, precision: 'double' as const };

  for (const [name, bad] of [['negative', -1], ['NaN', NaN], ['infinite', Infinity]] as const) {
    for (const precision of ['double', 'single'] as const) {
      it(`a ${name} value of a ${precision} file names the file, vector and field`, async () => {
        const values = seededRealValues(12, 1, precision);
        values[2 * 4 + 3] = bad;
        const path = join(dir, `bad-${name}-${precision}.bin`);
        writeRealFile(path, values, precision);
        await expect(runJob(czekanowskiJob({ ...base, precision, source: { kind: 'file', path } })))
          .rejects.toThrow(new RegExp(`^input file ${path}: vector 2, field 3 \\(0-based\\) is ${String(bad)}`));
      });
    }
  }

  it('a file of the wrong size names the file and the sizes', async () => {
    const path = join(dir, 'short.bin');
    writeFileSync(path, new Uint8Array(8 * 11));
    await expect(runJob(czekanowskiJob({ ...base, source: { kind: 'file', path } }))).rejects.toThrow(/has 88 bytes, not the 96 of 3 vectors × 4 fields/);
  });

  for (const backend of ['cpu', 'webgpu'] as const) {
    it(`--npf 2 is refused on ${backend}, as CoMet does`, async () => {
      await expect(runJob(czekanowskiJob({ ...base, backend, decomposition: { numProcField: 2 } }))).rejects.toThrow(/--metric czekanowski needs --npf 1/);
    });
  }
});
