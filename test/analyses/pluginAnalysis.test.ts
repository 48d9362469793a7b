// The analysis interface is all an analysis needs: an analysis of the tests' own (carrierAnalysis.ts), named only by
// its module's URL, runs on the ref, cpu and webgpu kernel sets, 2-way and 3-way, over vector blocks (in-process
// ranks load it in their threads), field slabs, replicas, phases and stages; every value equals a naive count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pairOrTripleWay } from '../../src/core/types.js';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { runJob, type JobSpec, type RunResult } from '../../src/engine/index.js';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { makeJob, type JobOptions } from '../engine/jobFixtures.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { CARRIER_ANALYSIS_MODULE, CARRIER_ANALYSIS_NAME } from './carrierAnalysis.js';

const gate = await webgpuGate();
const dir = mkdtempSync(join(tmpdir(), 'snptally-plugin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Carrier bits of the random problem (SPEC §4): nonzero genotype codes. */
function carriers(numVector: number, numField: number): Uint8Array[] {
  return Array.from({ length: numVector }, (_, v) => Uint8Array.from({ length: numField }, (_, f) => (randomProblemCode(v, f, numField) !== 0 ? 1 : 0)));
}

/** Naive value of entry bits `bits` (one per vector of the tuple): the fraction of fields whose carrier bits are those. */
function naiveValue(bitsOf: readonly Uint8Array[], tuple: readonly number[], bits: readonly number[], numField: number): number {
  let n = 0;
  for (let f = 0; f < numField; f++) if (tuple.every((v, t) => bitsOf[v][f] === bits[t])) n++;
  return n / numField;
}

let runIdx = 0;
function carrierJob(o: JobOptions): JobSpec {
  return { ...makeJob({ ...o, metric: CARRIER_ANALYSIS_NAME, outputStub: join(dir, `run${runIdx++}`) }), analysisModule: CARRIER_ANALYSIS_MODULE };
}

/** Every record equals the float32 of its naive value; returns how many there are. */
function checkRecords(result: RunResult, numWay: 2 | 3, numVector: number, numField: number): number {
  const bitsOf = carriers(numVector, numField);
  let numRecords = 0;
  for (const file of result.outputFiles) {
    for (const { coords, value } of readMetricsFileRecords(file, numWay)) {
      const tuple = coords.map((x) => x >> 1);
      const bits = coords.map((x) => x & 1);
      expect(value, `${tuple} ${bits}`).toBe(Math.fround(naiveValue(bitsOf, tuple, bits, numField)));
      numRecords++;
    }
  }
  return numRecords;
}

const backends: JobSpec['backend'][] = gate.available ? ['ref', 'cpu', 'webgpu'] : ['ref', 'cpu'];

const CASES: readonly { readonly name: string; readonly job: JobOptions }[] = [
  { name: '2-way nv 29 nf 70', job: { numVector: 29, numField: 70 } },
  { name: '2-way nv 41 nf 130, npv 3 npf 2, 2 phases', job: { numVector: 41, numField: 130, decomposition: { numProcVector: 3, numProcField: 2, numPhase: 2 } } },
  { name: '2-way nv 37 nf 65, npv 2 npr 2', job: { numVector: 37, numField: 65, decomposition: { numProcVector: 2, numProcRepl: 2 } } },
  { name: '3-way nv 14 nf 90', job: { numWay: 3, numVector: 14, numField: 90 } },
  { name: '3-way nv 19 nf 77, npv 3 npf 2, 2 stages', job: { numWay: 3, numVector: 19, numField: 77, decomposition: { numProcVector: 3, numProcField: 2, numStage: 2 } } },
];

describe(`an analysis registered by its module (${backends.join(', ')})`, () => {
  for (const c of CASES) {
    it(`${c.name}: every value is the naive one, every backend has one checksum`, async () => {
      const numWay = c.job.numWay ?? 2;
      const { numVector: nv, numField: nf } = c.job;
      const tuples = numWay === 2 ? (nv * (nv - 1)) / 2 : (nv * (nv - 1) * (nv - 2)) / 6;
      const checksums = new Set<string>();
      for (const backend of backends) {
        const result = await runJob(carrierJob({ ...c.job, backend }));
        expect(result.entries, backend).toBe(tuples * 2 ** numWay);
        expect(checkRecords(result, pairOrTripleWay(numWay), nv, nf), backend).toBe(result.entries);
        checksums.add(result.checksum);
      }
      expect([...checksums]).toHaveLength(1);
    });
  }

  it('keeps only the values above a threshold', async () => {
    const nv = 23, nf = 40;
    const bitsOf = carriers(nv, nf);
    let want = 0;
    for (let i = 0; i < nv; i++) for (let j = i + 1; j < nv; j++) {
      for (const bits of [[0, 0], [0, 1], [1, 0], [1, 1]]) if (Math.fround(naiveValue(bitsOf, [i, j], bits, nf)) > 0.3) want++;
    }
    const result = await runJob(carrierJob({ numVector: nv, numField: nf, threshold: 0.3 }));
    expect(result.entries).toBe(want);
    expect(checkRecords(result, 2, nv, nf)).toBe(want);
  });

  it('refuses what the analysis refuses, and a module without an analysis', async () => {
    await expect(runJob(carrierJob({ numVector: 10, numField: 10, sparse: true }))).rejects.toThrow('carriers has no sparse mode');
    const notAnAnalysis = { ...carrierJob({ numVector: 10, numField: 10 }), analysisModule: new URL('../helpers/layouts.js', import.meta.url).href };
    await expect(runJob(notAnAnalysis)).rejects.toThrow(/exports no analysis/);
  });
});
