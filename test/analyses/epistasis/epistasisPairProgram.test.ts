// The device value program of 2-way epistasis (analyses/epistasis/epistasisPairProgram.ts) against the host finalize
// (finalizeEpistasisPairs): every pair's engine value the same double, bit for bit, over thousands of random tables —
// dense and with missing calls, K2, MI and IG, empty and monomorphic SNPs, small and large class sizes, planes carrying
// their class ranges as blocks do (so they cross to the GPU packed) —; and the
// checksum and records of values named by pairs (every value in the checksum, the threshold choosing records).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysis as epistasis } from '../../../src/analyses/epistasis/index.js';
import { epistasisPlaneLayout, planeOf } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { slabPlaneWordRanges } from '../../../src/engine/blocks/planePacking.js';
import { ChecksumAccumulator } from '../../../src/core/checksum.js';
import { createPopcountGemmWebgpu, WORDS_PER_PLANE_ALIGN, type PlaneMatrix, type PopcountGemmWebgpu, type TermGroup } from '../../../src/mgemm/index.js';
import type { PairBlock, ResultSink, TupleRow, VectorBlockView } from '../../../src/analyses/analysis.js';
import type { Threshold } from '../../../src/core/thresholds.js';
import type { PairWindowLimits } from '../../../src/core/pairWindow.js';
import { DEFAULT_PARAM, type EpistasisScore } from '../../../src/core/types.js';
import { float32Bits } from '../../helpers/float32Bits.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';

const gate = await webgpuGate();

/** Genotypes 0, 1, 2, 3 = missing of one block, `g[v·numField + s]`. */
interface Genotypes {
  readonly numVector: number;
  readonly numField: number;
  readonly g: Uint8Array;
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/**
 * Random SNPs of varied allele frequencies — some monomorphic (empty cells), one with every call missing when calls
 * may be missing (a pair with no sample: MI 0).
 */
function randomGenotypes(random: () => number, numVector: number, numField: number, missingRate: number): Genotypes {
  const g = new Uint8Array(numVector * numField);
  for (let v = 0; v < numVector; v++) {
    const frequency = v % 7 === 3 ? 0 : random() * 0.6;
    const allMissing = missingRate > 0 && v % 11 === 5;
    for (let s = 0; s < numField; s++) {
      const allele = (): number => (random() < frequency ? 1 : 0);
      g[v * numField + s] = allMissing || random() < missingRate ? 3 : allele() + allele();
    }
  }
  return { numVector, numField, g };
}

/** The epistasis planes of a block: per class g = 0, g = 1 and present, bits only in the class's samples. */
function planesOf(genotypes: Genotypes, numControls: number): PlaneMatrix {
  const { numVector, numField, g } = genotypes;
  const wordsPerPlane = Math.ceil(Math.ceil(numField / 32) / WORDS_PER_PLANE_ALIGN) * WORDS_PER_PLANE_ALIGN;
  const words = new Uint32Array(numVector * 6 * wordsPerPlane);
  for (let v = 0; v < numVector; v++) {
    for (let s = 0; s < numField; s++) {
      const genotype = g[v * numField + s];
      if (genotype === 3) continue;
      const cls = s < numControls ? 0 : 1;
      const kinds = genotype === 2 ? [2] : [genotype, 2];
      for (const kind of kinds) words[(v * 6 + planeOf(cls, kind)) * wordsPerPlane + (s >> 5)] |= 1 << (s & 31);
    }
  }
  // The class ranges blocks carry (slabPlaneWordRanges): a GPU kernel set uploads only their words.
  const planeWordRanges = slabPlaneWordRanges(epistasisPlaneLayout({ numControls, numField, sparse: true }), 0, numField);
  return { numVectors: numVector, numPlanes: 6, wordsPerPlane, words, planeWordRanges };
}

function blockOf(planes: PlaneMatrix, vectorFirst: number): VectorBlockView {
  return { blockIdx: 0, vectorFirst, numVectorReal: planes.numVectors, planes, sums: new Float64Array(planes.numVectors), counts: new Float64Array(planes.numVectors) };
}

/** Tallies of a pair block from the definition: Σ popcount over each group's terms. */
function naiveTallies(block: PairBlock, termGroups: readonly TermGroup[]): Uint32Array[] {
  const popcount = (x: number): number => { let n = 0; for (let y = x >>> 0; y !== 0; y &= y - 1) n++; return n; };
  const { rows, cols } = block;
  const wpp = rows.planes.wordsPerPlane;
  return termGroups.map((group) => {
    const out = new Uint32Array(block.numRows * block.numCols);
    for (let r = 0; r < block.numRows; r++) for (let c = 0; c < block.numCols; c++) {
      let sum = 0;
      for (const [pa, pb] of group) {
        const a = ((block.rowFirst + r) * 6 + pa) * wpp;
        const b = ((block.colFirst + c) * 6 + pb) * wpp;
        for (let w = 0; w < wpp; w++) sum += popcount(rows.planes.words[a + w] & cols.planes.words[b + w]);
      }
      out[r * block.numCols + c] = sum;
    }
    return out;
  });
}

/** A sink that keeps each pair's value at its place in the block (NaN where no pair is). */
function capturingSink(block: PairBlock): { sink: ResultSink; values: Float64Array } {
  const values = new Float64Array(block.numRows * block.numCols).fill(NaN);
  const rowZero = block.rows.vectorFirst + block.rowFirst;
  const colZero = block.cols.vectorFirst + block.colFirst;
  const refuse = (): never => { throw new Error('epistasis finalize gives one value per pair'); };
  const sink: ResultSink = {
    threshold: { kind: 'none' }, checksum: new ChecksumAccumulator(), writesRecords: false,
    addPairRow: refuse, addPairEntryRow: refuse, addTripleRow: refuse, addPairCountRow: refuse, addRecordWords: refuse, addHistogramCounts: refuse,
    addTupleValueRow(tuple: TupleRow, row: Float64Array): void {
      for (let t = 0; t < tuple.count; t++) values[(tuple.i - rowZero) * block.numCols + tuple.first + t - colZero] = row[t];
    },
  };
  return { sink, values };
}

interface Case {
  readonly name: string;
  readonly numControls: number;
  readonly numCases: number;
  readonly missingRate: number;
  /** Rows of the row block, and of a second column block (0: the row block against itself, strictUpper). */
  readonly numRows: number;
  readonly numCols: number;
  readonly seed: number;
}

const CASES: readonly Case[] = [
  { name: 'dense, 150 + 183 samples, one block', numControls: 150, numCases: 183, missingRate: 0, numRows: 72, numCols: 0, seed: 1 },
  { name: 'missing calls, 260 + 257 samples, two blocks', numControls: 260, numCases: 257, missingRate: 0.06, numRows: 45, numCols: 38, seed: 2 },
  { name: 'dense, 9000 + 11001 samples (large table indices)', numControls: 9000, numCases: 11001, missingRate: 0, numRows: 12, numCols: 17, seed: 3 },
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

/** The case's pair block: rows of block 0 (global vectors from 3) against themselves or against block 1 (after them). */
function pairBlockOf(c: Case): PairBlock {
  const random = seeded(c.seed);
  const numField = c.numControls + c.numCases;
  const rows = blockOf(planesOf(randomGenotypes(random, c.numRows + 2, numField, c.missingRate), c.numControls), 3);
  if (c.numCols === 0) return { rows, rowFirst: 1, numRows: c.numRows, cols: rows, colFirst: 1, numCols: c.numRows, strictUpper: true };
  const cols = blockOf(planesOf(randomGenotypes(random, c.numCols + 1, numField, c.missingRate), c.numControls), 3 + c.numRows + 2);
  return { rows, rowFirst: 2, numRows: c.numRows, cols, colFirst: 0, numCols: c.numCols, strictUpper: false };
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
    const block = pairBlockOf(c);
    const numVector = 3 + c.numRows + c.numCols + 3;
    for (const score of SCORES) {
      const run = runOf(c, score, numVector);
      const pairs = run.pairs!;
      const host = capturingSink(block);
      const numPairs = pairs.finalize({ sink: host.sink, verifier: null }, block, naiveTallies(block, pairs.termGroups));
      expect(numPairs).toBe(c.numCols === 0 ? (c.numRows * (c.numRows - 1)) / 2 : c.numRows * c.numCols);
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
    const block = pairBlockOf(c);
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
