// The device value program of 2-way epistasis (analyses/epistasis/epistasisPairProgram.ts) against the host finalize
// (finalizeEpistasisPairs): every pair's engine value the same double, bit for bit, over thousands of random tables —
// dense and with missing calls, K2, MI and IG, empty and monomorphic SNPs, small and large class sizes, row SNPs after
// the column SNPs, planes carrying their class ranges as blocks do (so they cross to the GPU packed) —; the host's
// values equal the search's rescoring from the genotypes (canonical cell order); and the checksum and records of
// values named by pairs (every value in the checksum, the threshold choosing records).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysis as epistasis, engineValueOf, epistasisScore, k2ScaleOf, MarginalScratch, ScoreTables } from '../../../src/analyses/epistasis/index.js';
import { ChecksumAccumulator } from '../../../src/core/checksum.js';
import { createPopcountGemmWebgpu, type PopcountGemmWebgpu } from '../../../src/mgemm/index.js';
import type { PairBlock } from '../../../src/analyses/analysis.js';
import type { Threshold } from '../../../src/core/thresholds.js';
import type { PairWindowLimits } from '../../../src/core/pairWindow.js';
import { DEFAULT_PARAM, type EpistasisScore } from '../../../src/core/types.js';
import { float32Bits } from '../../helpers/float32Bits.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { blockOf, capturingSink, naiveTallies, planesOf, randomGenotypes, seeded } from './epistasisBlocks.js';
import { tableOf, type CaseControlData } from './naiveEpistasis.js';

const gate = await webgpuGate();



interface Case {
  readonly name: string;
  readonly numControls: number;
  readonly numCases: number;
  readonly missingRate: number;
  /** Rows of the row block, and of a second column block (0: the row block against itself, strictUpper). */
  readonly numRows: number;
  readonly numCols: number;
  readonly seed: number;
  /** The column block's SNPs precede the row block's. */
  readonly colsFirst?: boolean;
}

const CASES: readonly Case[] = [
  { name: 'dense, 150 + 183 samples, one block', numControls: 150, numCases: 183, missingRate: 0, numRows: 72, numCols: 0, seed: 1 },
  { name: 'missing calls, 260 + 257 samples, two blocks', numControls: 260, numCases: 257, missingRate: 0.06, numRows: 45, numCols: 38, seed: 2 },
  { name: 'dense, 9000 + 11001 samples (large table indices)', numControls: 9000, numCases: 11001, missingRate: 0, numRows: 12, numCols: 17, seed: 3 },
  { name: 'missing calls, 118 + 97 samples, columns before rows (cells transposed)', numControls: 118, numCases: 97, missingRate: 0.05, numRows: 21, numCols: 19, seed: 6, colsFirst: true },
  { name: 'dense, 201 + 160 samples, columns before rows (cells transposed)', numControls: 201, numCases: 160, missingRate: 0, numRows: 23, numCols: 18, seed: 7, colsFirst: true },
  { name: 'missing calls, 5 + 40 samples (tiny classes)', numControls: 5, numCases: 40, missingRate: 0.1, numRows: 30, numCols: 0, seed: 4 },
  { name: 'dense, no control and 70 cases (an empty class: its planes have no word)', numControls: 0, numCases: 70, missingRate: 0, numRows: 25, numCols: 0, seed: 5 },
];

const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];

function runOf(c: Case, score: EpistasisScore, numVector: number): ReturnType<typeof epistasis.forRun> {
  const numField = c.numControls + c.numCases;
  return epistasis.forRun({
    spec: { metric: 'epistasis', numWay: 2, sparse: c.missingRate > 0, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls: c.numControls, score } },
    numVector, numField,
  });
}

/**
 * The case's pair block: rows of block 0 against themselves, or against block 1 — after them (global vectors from 3),
 * or before them (`colsFirst`: the row SNP is the later one, so finalize transposes the cells) —, and the genotypes
 * by global vector.
 */
function pairBlockOf(c: Case): { block: PairBlock; data: CaseControlData } {
  const random = seeded(c.seed);
  const numField = c.numControls + c.numCases;
  const rowGenotypes = randomGenotypes(random, c.numRows + 2, numField, c.missingRate);
  const colGenotypes = c.numCols === 0 ? null : randomGenotypes(random, c.numCols + 1, numField, c.missingRate);
  const numVector = 3 + c.numRows + c.numCols + 3;
  const all = new Uint8Array(numVector * numField).fill(3);
  const phenotypes = Array.from({ length: numField }, (_, s) => (s < c.numControls ? 1 : 2));
  const data: CaseControlData = { numSnp: numVector, numSample: numField, genotypes: all, phenotypes };
  const rowFirst = c.colsFirst === true ? 3 + c.numCols + 1 : 3;
  const rows = blockOf(planesOf(rowGenotypes, c.numControls), rowFirst);
  all.set(rowGenotypes.g, rowFirst * numField);
  if (colGenotypes === null) return { block: { rows, rowFirst: 1, numRows: c.numRows, cols: rows, colFirst: 1, numCols: c.numRows, strictUpper: true }, data };
  const colFirst = c.colsFirst === true ? 3 : 3 + c.numRows + 2;
  const cols = blockOf(planesOf(colGenotypes, c.numControls), colFirst);
  all.set(colGenotypes.g, colFirst * numField);
  return { block: { rows, rowFirst: 2, numRows: c.numRows, cols, colFirst: 0, numCols: c.numCols, strictUpper: false }, data };
}

// The bitwise kernel, and the u8 one (its GEMMs sweep each class's words only: the analysis's planeWordRanges).
describe.skipIf(!gate.available).each(['bitwise', 'dot4'] as const)(`epistasis pair values on the device (%s) = host finalize, bit for bit, on ${gate.description}`, (kernel) => {
  let gemm: PopcountGemmWebgpu;
  beforeAll(async () => {
    gemm = await createPopcountGemmWebgpu({ kernel });
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each(CASES)('every pair\'s engine value, K2, MI and IG: $name', async (c) => {
    const { block, data } = pairBlockOf(c);
    const numVector = 3 + c.numRows + c.numCols + 3;
    const tables = new ScoreTables(c.numControls + c.numCases + 27);
    const scratch = new MarginalScratch();
    for (const score of SCORES) {
      const run = runOf(c, score, numVector);
      const pairs = run.pairs!;
      const host = capturingSink(block);
      const numPairs = pairs.finalize({ sink: host.sink, verifier: null }, block, naiveTallies(block, pairs.termGroups));
      expect(numPairs).toBe(c.numCols === 0 ? (c.numRows * (c.numRows - 1)) / 2 : c.numRows * c.numCols);
      // The host's values are the search's rescoring of each pair from its genotypes, the earlier SNP first.
      for (let r = 0; r < block.numRows; r++) for (let col = 0; col < block.numCols; col++) {
        const value = host.values[r * block.numCols + col];
        if (Number.isNaN(value)) continue;
        const snps = [block.rows.vectorFirst + block.rowFirst + r, block.cols.vectorFirst + block.colFirst + col].sort((a, b) => a - b);
        const want = engineValueOf(score, epistasisScore(score, tables, tableOf(data, snps), 2, scratch), k2ScaleOf(tables));
        if (!Object.is(value, want)) throw new Error(`${score} pair ${snps.join(',')}: host finalize ${value}, rescored ${want}`);
      }
      const device = pairs.deviceFinalizer!(gemm, { kind: 'none' }, { writesRecords: false, denseValues: 'float64' });
      expect(device).not.toBeNull();
      const result = await device!.start(block);
      if (result.kind !== 'done') throw new Error(`device declined: ${result.reason}`);
      const got = new Float64Array(result.denseValues!.words.slice().buffer);
      const gotBits = new Uint32Array(got.buffer);
      const wantBits = new Uint32Array(host.values.buffer);
      let compared = 0;
      for (let p = 0; p < host.values.length; p++) {
        if (Number.isNaN(host.values[p])) continue;
        // The double's two words: the same bits, not just close values.
        if (gotBits[2 * p] !== wantBits[2 * p] || gotBits[2 * p + 1] !== wantBits[2 * p + 1]) {
          throw new Error(`${score} pair at ${p}: device ${got[p]} host ${host.values[p]}`);
        }
        compared++;
      }
      expect(compared).toBe(numPairs);
      // Not a constant, the tables differ — but with one class empty MI and IG are 0 for every pair (engine value 0, 4).
      const distinct = new Set(host.values.filter((v) => !Number.isNaN(v)));
      if (score !== 'k2' && Math.min(c.numControls, c.numCases) === 0) expect([...distinct]).toEqual([score === 'mi' ? 0 : 4]);
      else expect(distinct.size).toBeGreaterThan(numPairs / 4);
      result.records.release();
    }
  }, 240_000);

  it('values named by pairs: every pair in the checksum (uid hi·nv + lo), records (i, j, value) past the threshold, a top-N bar', async () => {
    const c = CASES[1];
    const { block } = pairBlockOf(c);
    const numVector = 3 + c.numRows + c.numCols + 3;
    const pairs = runOf(c, 'k2', numVector).pairs!;
    const host = capturingSink(block);
    pairs.finalize({ sink: host.sink, verifier: null }, block, naiveTallies(block, pairs.termGroups));
    const sorted = Array.from(host.values).sort((a, b) => a - b);
    const threshold: Threshold = { kind: 'single', value: sorted[Math.floor(sorted.length * 0.8)] };
    const barValue = Math.fround(sorted[Math.floor(sorted.length * 0.9)]);
    const device = pairs.deviceFinalizer!(gemm, threshold, {
      writesRecords: true, recordBar: () => ({ keep: 'atLeast', valueBits: float32Bits(barValue) }),
    })!;
    const result = await device.start(block);
    if (result.kind !== 'done') throw new Error(`device declined: ${result.reason}`);
    const accumulator = new ChecksumAccumulator();
    const records: number[] = [];
    for (let r = 0; r < block.numRows; r++) for (let col = 0; col < block.numCols; col++) {
      const value = host.values[r * block.numCols + col];
      const i = block.rows.vectorFirst + block.rowFirst + r;
      const j = block.cols.vectorFirst + block.colFirst + col;
      accumulator.add(Math.max(i, j) * numVector + Math.min(i, j), value);
      if (Math.fround(value) > threshold.value && Math.fround(value) >= barValue) records.push(i, j, float32Bits(value));
    }
    expect(records.length).toBeGreaterThan(30);
    expect({ sum: result.checksumSum, entries: result.entries, zeros: result.zeros })
      .toEqual({ sum: accumulator.sum(), entries: accumulator.entries, zeros: accumulator.zeros });
    expect(Array.from(result.records.words.subarray(0, 3 * result.records.count))).toEqual(records);
    result.records.release();
  }, 120_000);

  it('declines a window (its words would follow the table) and a table past one binding', () => {
    const c = CASES[0];
    const pairs = runOf(c, 'mi', 100).pairs!;
    const limits = new Uint32Array(100);
    const window: PairWindowLimits = {
      spec: { maxVectorSpan: 5, maxDistanceBp: null, interChr: false }, bandBegin: limits, bandEnd: limits, chrBegin: limits, chrEnd: limits,
    };
    expect(pairs.deviceFinalizer!(gemm, { kind: 'none' }, { writesRecords: false, window })).toBeNull();
    expect(pairs.deviceFinalizer!(gemm, { kind: 'none' }, { writesRecords: false })).not.toBeNull();
    // A table of 2^23 doubles (64 MiB) and 2^22 vectors' counts (64 MiB) exceed 128 MiB.
    const huge = epistasis.forRun({
      spec: { metric: 'epistasis', numWay: 2, sparse: false, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls: 2 ** 22, score: 'k2' } },
      numVector: 2 ** 22, numField: 2 ** 23,
    });
    expect(huge.pairs!.deviceFinalizer!(gemm, { kind: 'none' }, { writesRecords: false })).toBeNull();
  });
});
