// --metric r2 against the naive pairwise-complete reference: every written value, entry bits, checksum,
// thresholds, dense and sparse, the CPU backends and device finalize, every decomposition axis and phases, NaN pairs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { runJob, type DecompositionSpec, type RunResult } from '../../src/engine/index.js';
import { packFieldValues, readMetricsFileRecords, writePackedVectorFile } from '../../src/io/index.js';
import { ldProblemCodes } from '../helpers/ldProblem.js';
import { naiveR2, type CodeSource, type NaiveR2Result } from '../helpers/naiveR2.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob, type JobOptions } from './jobFixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-r2-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Problem { name: string; numVector: number; numField: number; source: JobOptions['source']; code: CodeSource }

function randomProblem(numVector: number, numField: number): Problem {
  return { name: `random ${numVector}×${numField}`, numVector, numField, source: { kind: 'random' }, code: (v, f) => randomProblemCode(v, f, numField) };
}

function ldProblem(numVector: number, numField: number, missingRate: number): Problem {
  const codes = ldProblemCodes(numVector, numField, 777, missingRate);
  const path = join(dir, `ld-${numVector}-${numField}-${missingRate}.bin`);
  writePackedVectorFile(path, packFieldValues(numVector, numField, (v, f) => codes[v * numField + f]), numVector, numField);
  return { name: `ld ${numVector}×${numField} missing ${missingRate}`, numVector, numField, source: { kind: 'file', path }, code: (v, f) => codes[v * numField + f] };
}

let runIdx = 0;
async function runR2(p: Problem, sparse: boolean, extra: Partial<JobOptions> = {}): Promise<RunResult> {
  return runJob(makeJob({
    metric: 'r2', sparse, numVector: p.numVector, numField: p.numField, source: p.source,
    outputStub: join(dir, `run${runIdx++}`), ...extra,
  }));
}

/** Every record of the run is one pair with entry 11 and the float32 of the naive value; all pairs present. */
function expectRecords(result: RunResult, naive: NaiveR2Result): void {
  const seen = new Set<string>();
  for (const file of result.outputFiles) {
    for (const { coords, value } of readMetricsFileRecords(file, 2)) {
      expect(coords.map((x) => x & 1)).toEqual([1, 1]);
      const [i, j] = coords.map((x) => x >> 1).sort((a, b) => a - b);
      const key = `${i},${j}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      const want = naive.values.get(key);
      expect(want, key).toBeDefined();
      expect(value, key).toBe(Math.fround(want as number)); // toBe treats NaN as equal to NaN
    }
  }
  expect(seen.size).toBe(result.entries);
  expect(result.entries).toBe(naive.entries);
  expect(result.entries).toBe(naive.values.size);
}

describe('r2: one pass over integer tallies equals a two-pass Pearson correlation', () => {
  it('on linked SNPs with missing calls', () => {
    const p = ldProblem(40, 301, 0.08);
    const naive = naiveR2(p.numVector, p.numField, true, p.code);
    let nan = 0, strong = 0;
    for (const [key, v] of naive.values) {
      const c = naive.centred.get(key) as number;
      if (Number.isNaN(v)) { nan++; expect(c, key).toBeNaN(); continue; }
      if (v > 0.5) strong++;
      expect(Math.abs(v - c), key).toBeLessThan(1e-12);
    }
    // The problem really has undefined pairs and strong linkage.
    expect(nan).toBeGreaterThan(40);
    expect(strong).toBeGreaterThan(20);
  });
});

const grids: Partial<DecompositionSpec>[] = [
  {},
  { numProcVector: 2, numProcField: 2 },
  { numProcVector: 3, numProcRepl: 2, numPhase: 2 },
  { numProcVector: 4, numPhase: 3 },
  { numProcVector: 5, numProcField: 1, numProcRepl: 1, numPhase: 3, phaseMin: 1, phaseMax: 2 },
  { numProcField: 3 },
];
const label = (d: Partial<DecompositionSpec>): string => JSON.stringify(d).replace(/"|numProc|num/g, '');

describe('r2 equals the naive reference', () => {
  const problems = [randomProblem(23, 131), ldProblem(37, 203, 0.06), ldProblem(21, 77, 0)];
  for (const p of problems) {
    for (const sparse of [false, true]) {
      const naive = naiveR2(p.numVector, p.numField, sparse, p.code);
      for (const backend of ['ref', 'cpu'] as const) {
        it(`${p.name} ${sparse ? 'sparse' : 'dense'} (${backend}), every value`, async () => {
          const result = await runR2(p, sparse, { backend, decomposition: { numProcVector: 2, numProcField: 2 } });
          expect(result.checksum).toBe(naive.checksum);
          expectRecords(result, naive);
        });
      }
    }
  }
});

const gate = await webgpuGate();

describe.skipIf(!gate.available)(`r2 finalized on the GPU equals the naive reference (${gate.description})`, () => {
  const p = ldProblem(41, 157, 0.07);
  for (const sparse of [false, true]) {
    it(`${p.name} ${sparse ? 'sparse' : 'dense'}, npv 2, every value`, async () => {
      const naive = naiveR2(p.numVector, p.numField, sparse, p.code);
      const result = await runR2(p, sparse, { backend: 'webgpu', decomposition: { numProcVector: 2 } });
      expect(result.deviceFinalizedPairs).toBe(naive.values.size);
      expect(result.checksum).toBe(naive.checksum);
      expectRecords(result, naive);
    });
  }
});

describe('r2 checksum across decompositions and phases', () => {
  const p = ldProblem(37, 203, 0.06);
  const naive = naiveR2(p.numVector, p.numField, true, p.code);
  for (const d of grids) {
    it(label(d), async () => {
      const result = await runR2(p, true, { decomposition: d });
      if (d.phaseMin === undefined) {
        expect(result.checksum).toBe(naive.checksum);
        expect(result.entries).toBe(naive.entries);
      } else {
        // Phases 1–2 of 3 cover only part of the pairs: every record still matches the reference.
        expect(result.entries).toBeLessThan(naive.entries);
        for (const file of result.outputFiles) {
          for (const { coords, value } of readMetricsFileRecords(file, 2)) {
            const [i, j] = coords.map((x) => x >> 1).sort((a, b) => a - b);
            expect(value).toBe(Math.fround(naive.values.get(`${i},${j}`) as number));
          }
        }
      }
    });
  }
});

describe('r2 thresholds and undefined values', () => {
  it('a threshold keeps pairs with float32 r² > t and drops NaN pairs', async () => {
    const p = ldProblem(37, 203, 0.06);
    const naive = naiveR2(p.numVector, p.numField, true, p.code, 0.2);
    const result = await runR2(p, true, { threshold: 0.2, backend: 'cpu' });
    expect(result.checksum).toBe(naive.checksum);
    expect(result.entries).toBe(naive.entries);
    for (const file of result.outputFiles) {
      for (const { value } of readMetricsFileRecords(file, 2)) expect(value).toBeGreaterThan(0.2);
    }
  });

  it('NaN pairs are entries that add nothing to the checksum', async () => {
    const p = ldProblem(37, 203, 0.06);
    const all = naiveR2(p.numVector, p.numField, true, p.code);
    const nanCount = [...all.values.values()].filter(Number.isNaN).length;
    expect(nanCount).toBeGreaterThan(0);
    const result = await runR2(p, true);
    expect(result.entries).toBe(all.values.size);
    const above = naiveR2(p.numVector, p.numField, true, p.code, -1);
    expect(result.checksum).toBe(above.checksum);
    expect(above.entries).toBe(all.values.size - nanCount);
  });
});

describe('r2 job errors', () => {
  for (const [name, extra, message] of [
    ['3-way', { numWay: 3 }, /--metric r2 is 2-way only/],
    ['--verify', { source: { kind: 'analytic' }, verify: true }, /--verify .* not of --metric r2/],
  ] as const) {
    it(`refuses ${name}`, async () => {
      const job = makeJob({ metric: 'r2', numVector: 8, numField: 10, ...extra });
      await expect(runJob(job)).rejects.toBeInstanceOf(UserError);
      await expect(runJob(job)).rejects.toThrow(message);
    });
  }
});
