// The device value program of 3-way epistasis (analyses/epistasis/epistasisTripleProgram.ts) against the host finalize
// (finalizeEpistasisTriples), on the bitwise kernel: every triple's engine value the same double, word for word —
// dense (16 tallies, block-pair counts and class counts) and with missing calls (54 tallies), K2, MI and IG, tiny and large classes, ragged sample counts, blocks whose global order
// puts i, j and k in every order —; the host's values equal the search's rescoring of each triple from its genotypes
// (cells in canonical order, whichever SNP is i, j or k); and the checksum and records of values named by triples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analysis as epistasis, engineValueOf, epistasisScore, k2ScaleOf, MarginalScratch, ScoreTables } from '../../../src/analyses/epistasis/index.js';
import { epistasisTripleValues } from '../../../src/analyses/epistasis/epistasisTripleProgram.js';
import { classWordRanges } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { ChecksumAccumulator } from '../../../src/core/checksum.js';
import { PopcountGemmRef } from '../../../src/mgemm/kernels/ref/popcountGemmRef.js';
import {
  createPopcountGemmWebgpu, type PopcountGemm3Request, type PopcountGemmWebgpu, type Tally3Slice, type TripleValueProgram,
} from '../../../src/mgemm/index.js';
import { pairCountGroupsOf, type BlockPairCounts, type PairCounts, type ResultSink, type TupleRow, type VectorBlockView } from '../../../src/analyses/analysis.js';
import { groupedTriplePairCounts } from '../../../src/analyses/deviceTriples.js';
import { DEFAULT_PARAM, type EpistasisScore } from '../../../src/core/types.js';
import { float32Bits } from '../../helpers/float32Bits.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { blockOf, planesOf, randomGenotypes, seeded, type Genotypes } from './epistasisBlocks.js';
import { tableOf, type CaseControlData } from './naiveEpistasis.js';
import { doubleWgsl } from '../../../src/analyses/epistasis/epistasisPairProgram.js';
import { cometHistogramLayout } from '../../../src/analyses/comet/cometHistogram.js';

const gate = await webgpuGate();

interface Case {
  readonly name: string;
  readonly numControls: number;
  readonly numCases: number;
  readonly missingRate: number;
  readonly seed: number;
  /** Which of the x (i), y (j), z (k) blocks comes first, second, third in global vector order. */
  readonly globalOrder: readonly ('x' | 'y' | 'z')[];
}

const CASES: readonly Case[] = [
  { name: 'dense, 150 + 183 samples, i < j < k', numControls: 150, numCases: 183, missingRate: 0, seed: 1, globalOrder: ['x', 'y', 'z'] },
  { name: 'missing calls, 61 + 44 samples, k < i < j', numControls: 61, numCases: 44, missingRate: 0.06, seed: 2, globalOrder: ['z', 'x', 'y'] },
  { name: 'dense, 3000 + 4001 samples (large table indices), j < k < i', numControls: 3000, numCases: 4001, missingRate: 0, seed: 3, globalOrder: ['y', 'z', 'x'] },
  { name: 'missing calls, 5 + 40 samples (tiny classes), k < j < i', numControls: 5, numCases: 40, missingRate: 0.1, seed: 4, globalOrder: ['z', 'y', 'x'] },
  { name: 'dense, 33 + 0 samples (no case), j < i < k', numControls: 33, numCases: 0, missingRate: 0, seed: 5, globalOrder: ['y', 'x', 'z'] },
];

const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];

const NUM_ROWS = { x: 9, y: 4, z: 11 } as const;

/** A case's three blocks (first global vector 2, blocks in its global order) and its genotypes by global vector. */
interface Operands {
  readonly blocks: Record<'x' | 'y' | 'z', VectorBlockView>;
  readonly data: CaseControlData;
  readonly numVector: number;
}

function operandsOf(c: Case): Operands {
  const random = seeded(c.seed);
  const numField = c.numControls + c.numCases;
  const genotypes = new Map<'x' | 'y' | 'z', Genotypes>();
  for (const name of ['x', 'y', 'z'] as const) genotypes.set(name, randomGenotypes(random, NUM_ROWS[name], numField, c.missingRate));
  const blocks: Partial<Record<'x' | 'y' | 'z', VectorBlockView>> = {};
  const numVector = 2 + NUM_ROWS.x + NUM_ROWS.y + NUM_ROWS.z + 3;
  const all = new Uint8Array(numVector * numField).fill(3);
  let vectorFirst = 2;
  for (const name of c.globalOrder) {
    const g = genotypes.get(name)!;
    blocks[name] = blockOf(planesOf(g, c.numControls), vectorFirst);
    all.set(g.g, vectorFirst * numField);
    vectorFirst += g.numVector;
  }
  const phenotypes = Array.from({ length: numField }, (_, s) => (s < c.numControls ? 1 : 2));
  return { blocks: blocks as Record<'x' | 'y' | 'z', VectorBlockView>, data: { numSnp: numVector, numSample: numField, genotypes: all, phenotypes }, numVector };
}

/** Three slices of several rows and columns, ragged, one of them a single row. */
const SLICES: readonly Tally3Slice[] = [
  { yRow: 0, xFirst: 0, xCount: 9, zFirst: 0, zCount: 11 },
  { yRow: 2, xFirst: 3, xCount: 5, zFirst: 4, zCount: 6 },
  { yRow: 3, xFirst: 8, xCount: 1, zFirst: 1, zCount: 10 },
];

function runOf(c: Case, score: EpistasisScore, numVector: number): ReturnType<typeof epistasis.forRun> {
  return epistasis.forRun({
    spec: { metric: 'epistasis', numWay: 3, sparse: c.missingRate > 0, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls: c.numControls, score } },
    numVector, numField: c.numControls + c.numCases,
  });
}

function gemmOf(ops: Operands, run: ReturnType<typeof epistasis.forRun>): PopcountGemm3Request {
  const plan = run.triples!.plan;
  const { x, y, z } = ops.blocks;
  return { x: x.planes, y: y.planes, z: z.planes, planePairs: plan.planePairs, termGroups: plan.termGroups, slices: SLICES };
}

const keyOf = (i: number, j: number, k: number): string => `${i},${j},${k}`;

/** The block-pair counts the run's plan asks for (dense runs: the genotype pair counts per class), from the reference kernels; null when none. */
async function blockPairCountsOf(ops: Operands, run: ReturnType<typeof epistasis.forRun>): Promise<BlockPairCounts | null> {
  const groups = pairCountGroupsOf(run.triples!.plan);
  if (groups.length === 0) return null;
  const counts = async (a: VectorBlockView, b: VectorBlockView): Promise<PairCounts> => {
    const tallies = await new PopcountGemmRef().run({
      a: a.planes, aFirst: 0, aCount: a.numVectorReal, b: b.planes, bFirst: 0, bCount: b.numVectorReal, termGroups: [...groups], strictUpper: false,
    });
    return { data: tallies[0], numCols: b.numVectorReal, groups: tallies };
  };
  const { x, y, z } = ops.blocks;
  return { ij: await counts(x, y), ik: await counts(x, z), jk: await counts(y, z), ji: await counts(y, x) };
}

/** The host finalize's value of every triple of the request, by "i,j,k" (tallies from the reference kernels). */
async function hostValues(ops: Operands, run: ReturnType<typeof epistasis.forRun>): Promise<Map<string, number>> {
  const tallies = await new PopcountGemmRef().run3(gemmOf(ops, run));
  const values = new Map<string, number>();
  const refuse = (): never => { throw new Error('epistasis finalize gives one value per triple'); };
  const sink: ResultSink = {
    threshold: { kind: 'none' }, checksum: new ChecksumAccumulator(), writesRecords: false,
    addPairRow: refuse, addPairEntryRow: refuse, addTripleRow: refuse, addPairCountRow: refuse, addRecordWords: refuse, addHistogramCounts: refuse,
    addTupleValueRow(tuple: TupleRow, row: Float64Array): void {
      for (let t = 0; t < tuple.count; t++) values.set(keyOf(tuple.i, tuple.j!, tuple.first + t), row[t]);
    },
  };
  const { x, y, z } = ops.blocks;
  const pairCounts = await blockPairCountsOf(ops, run);
  SLICES.forEach((s, idx) => {
    const slice = { iBlock: x, iFirst: s.xFirst, numI: s.xCount, jBlock: y, jLocal: s.yRow, kBlock: z, kFirst: s.zFirst, numK: s.zCount };
    run.triples!.finalize({ sink, verifier: null }, slice, tallies[idx], pairCounts);
  });
  return values;
}

/**
 * A program returning 16 bits of the epistasis program's double — bits 16·part … of its (lo, hi) words, part the
 * constant `bitsPart` — as (bits / 8192), exact in float32: the records then carry every word of every value.
 */
function bitsProgram(program: TripleValueProgram): TripleValueProgram {
  return {
    cacheKey: `${program.cacheKey}/bits`,
    wgsl: `${program.wgsl.replace('fn tripleValue(', 'fn scoredValue(')}
fn tripleValue(t: u32, rq: u32, cq: u32, gi: u32, gj: u32, gk: u32) -> vec2<u32> {
  let v = scoredValue(t, rq, cq, gi, gj, gk);
  let word = select(v.x, v.y, u.bitsPart >= 2u);
  return sdDiv(sdFromU32((word >> (16u * (u.bitsPart % 2u))) & 0xffffu), ${doubleWgsl(8192)});
}`,
    vectorWords: program.vectorWords,
    constantNames: [...program.constantNames, 'bitsPart'],
    pairCountGroups: program.pairCountGroups,
  };
}

describe.skipIf(!gate.available)(`epistasis triple values on the device (bitwise kernel) = host finalize, bit for bit, on ${gate.description}`, () => {
  let gemm: PopcountGemmWebgpu;
  beforeAll(async () => {
    gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each(CASES)('every triple\'s engine value, K2, MI and IG: $name', async (c) => {
    const ops = operandsOf(c);
    const numField = c.numControls + c.numCases;
    const numTriples = SLICES.reduce((sum, s) => sum + s.xCount * s.zCount, 0);
    const tables = new ScoreTables(numField + 27);
    const scratch = new MarginalScratch();
    for (const score of SCORES) {
      const run = runOf(c, score, ops.numVector);
      const host = await hostValues(ops, run);
      expect(host.size).toBe(numTriples);
      // The host's values are the search's rescoring of each triple from its genotypes, SNPs in increasing order.
      for (const [key, value] of host) {
        const snps = key.split(',').map(Number).sort((a, b) => a - b);
        const want = engineValueOf(score, epistasisScore(score, tables, tableOf(ops.data, snps), 3, scratch), k2ScaleOf(tables));
        if (!Object.is(value, want)) throw new Error(`${score} triple ${key}: host finalize ${value}, rescored ${want}`);
      }
      const values = epistasisTripleValues({
        score, sparse: c.missingRate > 0, classSizes: [c.numControls, c.numCases], tables, classWords: classWordRanges(c.numControls, numField),
      })!;
      const program = bitsProgram(values.program);
      const blockPairs = await blockPairCountsOf(ops, run);
      const pairCounts = blockPairs === null ? null : groupedTriplePairCounts(blockPairs, program.pairCountGroups ?? 0);
      const words = new Map<string, Uint32Array>();
      for (let part = 0; part < 4; part++) {
        const result = await gemm.finalizeTriples({
          gemm: gemmOf(ops, run), values: program, constants: [...values.constants, part], runWords: values.runWords, pairCounts,
          xVectors: values.wordsOf(ops.blocks.x), yVectors: values.wordsOf(ops.blocks.y), zVectors: values.wordsOf(ops.blocks.z),
          xVectorFirst: ops.blocks.x.vectorFirst, yVectorFirst: ops.blocks.y.vectorFirst, zVectorFirst: ops.blocks.z.vectorFirst,
          numVector: ops.numVector, threshold: { kind: 'none' }, records: true,
        });
        if (result.kind !== 'done') throw new Error(`device declined: ${result.reason}`);
        expect(result.records.count).toBe(numTriples);
        const r = result.records.words;
        for (let n = 0; n < result.records.count; n++) {
          const key = keyOf(r[4 * n], r[4 * n + 1], r[4 * n + 2]);
          const got = words.get(key) ?? new Uint32Array(2);
          const half = new Float32Array(new Uint32Array([r[4 * n + 3]]).buffer)[0] * 8192;
          got[part >> 1] |= half << (16 * (part & 1));
          words.set(key, got);
        }
      }
      for (const [key, value] of host) {
        const want = new Uint32Array(new Float64Array([value]).buffer);
        const got = words.get(key);
        if (got === undefined || got[0] !== want[0] || got[1] !== want[1]) {
          throw new Error(`${score} triple ${key}: device ${got === undefined ? 'none' : new Float64Array(got.buffer)[0]}, host ${value}`);
        }
      }
      // Not a constant: the tables differ — but with one class empty MI and IG are 0 for every triple (engine value 0, 4).
      const distinct = new Set(host.values());
      if (score !== 'k2' && Math.min(c.numControls, c.numCases) === 0) expect([...distinct]).toEqual([score === 'mi' ? 0 : 4]);
      else expect(distinct.size).toBeGreaterThan(numTriples / 4);
    }
  }, 600_000);

  it('values named by triples: every triple in the checksum (uid of sorted coordinates), records (i, j, k, value) past the threshold and a top-N bar', async () => {
    const c = CASES[1];
    const ops = operandsOf(c);
    for (const score of ['k2', 'ig'] as const) {
      const run = runOf(c, score, ops.numVector);
      const host = await hostValues(ops, run);
      const sorted = [...host.values()].sort((a, b) => a - b);
      const threshold = { kind: 'single' as const, value: sorted[Math.floor(sorted.length * 0.7)] };
      const barValue = Math.fround(sorted[Math.floor(sorted.length * 0.85)]);
      const device = run.triples!.deviceFinalizer!(gemm, threshold, {
        writesRecords: true, recordBar: () => ({ keep: 'atLeast', valueBits: float32Bits(barValue) }),
      })!;
      expect(device).not.toBeNull();
      const { x, y, z } = ops.blocks;
      const result = await device.start(x, { jb: y, kb: z, slices: [], pairCounts: await blockPairCountsOf(ops, run) }, gemmOf(ops, run));
      if (result.kind !== 'done') throw new Error(`device declined: ${result.reason}`);
      const accumulator = new ChecksumAccumulator();
      const records: number[] = [];
      for (const s of SLICES) for (let r = 0; r < s.xCount; r++) for (let col = 0; col < s.zCount; col++) {
        const [i, j, k] = [x.vectorFirst + s.xFirst + r, y.vectorFirst + s.yRow, z.vectorFirst + s.zFirst + col];
        const value = host.get(keyOf(i, j, k))!;
        const [hi, mid, lo] = [i, j, k].sort((a, b) => b - a);
        accumulator.add((hi * ops.numVector + mid) * ops.numVector + lo, value);
        if (Math.fround(value) > threshold.value && Math.fround(value) >= barValue) records.push(i, j, k, float32Bits(value));
      }
      expect(records.length).toBeGreaterThan(4 * 20);
      expect({ sum: result.checksumSum, entries: result.entries, zeros: result.zeros })
        .toEqual({ sum: accumulator.sum(), entries: accumulator.entries, zeros: accumulator.zeros });
      expect(Array.from(result.records.words.subarray(0, 4 * result.records.count))).toEqual(records);
    }
  }, 300_000);

  it('declines what it cannot apply: a per-entry threshold, a histogram', () => {
    const run = runOf(CASES[0], 'mi', 40);
    const multi3 = { kind: 'multi3' as const, tLLL: 0, tLLH: 0, tLHH: 0, tHHH: 0, tLLLHHH: 0 };
    expect(run.triples!.deviceFinalizer!(gemm, multi3, { writesRecords: true })).toBeNull();
    const histogram = cometHistogramLayout('ccc', 3, 4.5);
    expect(run.triples!.deviceFinalizer!(gemm, { kind: 'none' }, { writesRecords: false, histogram })).toBeNull();
    expect(run.triples!.deviceFinalizer!(gemm, { kind: 'none' }, { writesRecords: false })).not.toBeNull();
  });
});
