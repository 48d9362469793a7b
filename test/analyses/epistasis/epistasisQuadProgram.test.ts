// The device value program of 4-way epistasis (analyses/epistasis/epistasisQuadProgram.ts, values named by quads) against
// the host finalize (finalizeEpistasisQuads on the reference kernel's mGEMM4 tallies, the dense plan where no call is
// missing): every quadruple's engine value the same double, word for word — dense and with missing calls, K2, MI and IG,
// tiny classes, a class without samples, sample counts not multiples of 32 —; the records past a threshold, put back as
// (i, j, k, l) in the host's tile order; and quadDeviceRects' rectangles against a cell-by-cell count of the plan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeEpistasisQuads, quadTallyPlan } from '../../../src/analyses/epistasis/epistasisQuads.js';
import { epistasisQuadValues } from '../../../src/analyses/epistasis/epistasisQuadProgram.js';
import { classWordRanges } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { ScoreTables } from '../../../src/analyses/epistasis/epistasisScores.js';
import type { EpistasisFinalizeSettings } from '../../../src/analyses/epistasis/epistasisPairs.js';
import { quadRecordWords } from '../../../src/analyses/deviceQuads.js';
import { PopcountGemmRef } from '../../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWebgpu, pairPlaneMatrix, type PairFinalizeRequest, type PlaneMatrix, type PopcountGemmWebgpu } from '../../../src/mgemm/index.js';
import { colPairsOf, numPairs, quadPlan, quadsOfTile, rowPairsOf } from '../../../src/parallel/index.js';
import { quadColumnChunks, quadDeviceRects, quadsOfRect, type QuadDeviceRect } from '../../../src/engine/pipeline/quadDeviceRects.js';
import type { QuadDeviceRequest, ResultSink, TupleRow } from '../../../src/analyses/analysis.js';
import type { EpistasisScore } from '../../../src/core/types.js';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { blockOf, planesOf, randomGenotypes, seeded } from './epistasisBlocks.js';

const gate = await webgpuGate();

const CASES = [
  { name: 'dense, 150 + 183 samples', numControls: 150, numCases: 183, missingRate: 0, seed: 1 },
  { name: 'missing calls, 61 + 44 samples', numControls: 61, numCases: 44, missingRate: 0.06, seed: 2 },
  { name: 'missing calls, 5 + 40 samples (tiny classes)', numControls: 5, numCases: 40, missingRate: 0.1, seed: 3 },
  { name: 'dense, 33 + 0 samples (no case)', numControls: 33, numCases: 0, missingRate: 0, seed: 4 },
] as const;

const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];
const NUM_SNP = 9;

/** Every pair (j-major rows, k-major columns) of the case's SNPs, its planes and finalize settings. */
function setup(c: (typeof CASES)[number], score: EpistasisScore): { planes: PlaneMatrix; settings: EpistasisFinalizeSettings } {
  const numField = c.numControls + c.numCases;
  const planes = planesOf(randomGenotypes(seeded(c.seed), NUM_SNP, numField, c.missingRate), c.numControls);
  const settings: EpistasisFinalizeSettings = {
    score, sparse: c.missingRate > 0, classSizes: [c.numControls, c.numCases], tables: new ScoreTables(numField + 81),
    classWords: classWordRanges(c.numControls, numField),
  };
  return { planes, settings };
}

/** The host's engine value of every quadruple, keyed 'i,j,k,l' (one tile of all pairs on the reference kernel). */
async function hostValues(planes: PlaneMatrix, settings: EpistasisFinalizeSettings): Promise<Map<string, number>> {
  const plan = quadTallyPlan(settings.sparse);
  const total = numPairs(NUM_SNP);
  const rows = rowPairsOf(0, total);
  const cols = colPairsOf(NUM_SNP, 0, total);
  const a = pairPlaneMatrix(planes, rows.i, rows.j, plan.rowPlanePairs);
  const b = pairPlaneMatrix(planes, cols.k, cols.l, plan.colPlanePairs);
  const ref = new PopcountGemmRef();
  const tallies = await ref.run({ a, aFirst: 0, aCount: total, b, bFirst: 0, bCount: total, termGroups: plan.termGroups, strictUpper: false });
  const vectorTallies = plan.vectorTermGroups === null ? null : await ref.run({
    a, aFirst: 0, aCount: total, b: planes, bFirst: 0, bCount: NUM_SNP, termGroups: plan.vectorTermGroups, strictUpper: false,
  });
  const values = new Map<string, number>();
  const sink = {
    addTupleValueRow(tuple: TupleRow, rowValues: Float64Array): void {
      for (let t = 0; t < tuple.count; t++) values.set([tuple.i, tuple.j, tuple.k, tuple.first + t].join(','), rowValues[t]);
    },
  } as unknown as ResultSink;
  const view = { vectors: blockOf(planes, 0), rowI: rows.i, rowJ: rows.j, colK: cols.k, colL: cols.l, vectorFirst: 0, numVectorCols: NUM_SNP };
  finalizeEpistasisQuads(settings, { sink, verifier: null }, view, tallies, vectorTallies);
  return values;
}

/** The device request of row pairs [rowFirst, rowEnd) × every column pair, as ProgramDeviceQuads builds it. */
function deviceRequest(planes: PlaneMatrix, settings: EpistasisFinalizeSettings, rowFirst: number, rowEnd: number): PairFinalizeRequest {
  const values = epistasisQuadValues(settings)!;
  const total = numPairs(NUM_SNP);
  const rows = rowPairsOf(rowFirst, rowEnd);
  const cols = colPairsOf(NUM_SNP, 0, total);
  const a = { ...pairPlaneMatrix(planes, rows.i, rows.j, values.plan.rowPlanePairs), planeWordRanges: values.planeWordRanges };
  const b = { ...pairPlaneMatrix(planes, cols.k, cols.l, values.plan.colPlanePairs), planeWordRanges: values.planeWordRanges };
  return {
    gemm: { a, aFirst: 0, aCount: a.numVectors, b, bFirst: 0, bCount: total, termGroups: values.plan.termGroups, strictUpper: false, planeWordRanges: values.planeWordRanges },
    values: values.program, constants: values.constants, rowVectors: values.tableWords, colVectors: values.tableWords,
    rowVectorFirst: rowFirst, colVectorFirst: 0, numVector: NUM_SNP, threshold: { kind: 'none' }, records: false,
  };
}

describe.skipIf(!gate.available)(`epistasis quadruple values on the device (bitwise kernel) = host finalize, bit for bit, on ${gate.description}`, () => {
  let gemm: PopcountGemmWebgpu;
  beforeAll(async () => {
    gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
  });
  afterAll(async () => {
    await gemm.close();
  });

  for (const score of SCORES) {
    it(`${score}: every quadruple's double, dense and with missing calls, ragged and tiny classes`, async () => {
      for (const c of CASES) {
        const { planes, settings } = setup(c, score);
        const want = await hostValues(planes, settings);
        expect(want.size).toBe(126);
        // Row pairs from 3 on (rows of j < 2 hold no quadruple with these columns but pass through the skip).
        const request = { ...deviceRequest(planes, settings, 3, numPairs(NUM_SNP)), denseValues: 'float64' as const };
        const result = await gemm.finalizePairs(request);
        if (result.kind !== 'done') throw new Error(`declined: ${result.reason}`);
        const rows = rowPairsOf(3, numPairs(NUM_SNP));
        const cols = colPairsOf(NUM_SNP, 0, numPairs(NUM_SNP));
        const doubles = new Float64Array(result.denseValues!.words.slice().buffer);
        let compared = 0;
        for (let r = 0; r < rows.i.length; r++) {
          for (let col = 0; col < cols.k.length; col++) {
            if (rows.j[r] >= cols.k[col]) continue;
            const key = [rows.i[r], rows.j[r], cols.k[col], cols.l[col]].join(',');
            expect(Object.is(doubles[r * cols.k.length + col], want.get(key)), `${c.name} ${key}`).toBe(true);
            compared++;
          }
        }
        // Rows (0, 1), (0, 2), (1, 2) have j ≤ 2: every quadruple but those with (i, j) among them.
        expect(compared).toBe(126 - 21 - 15 - 15);
        // Every quadruple of the request, and no other cell, counts once in the checksum.
        expect(result.entries).toBe(compared);
      }
    }, 300_000);
  }

  it('records past a threshold: (row pair, column pair) from the device, (i, j, k, l) in the host\'s tile order', async () => {
    const { planes, settings } = setup(CASES[1], 'mi');
    const want = await hostValues(planes, settings);
    const sorted = [...want.values()].sort((x, y) => y - x);
    const threshold = Math.fround((sorted[29] + sorted[30]) / 2);
    const request = { ...deviceRequest(planes, settings, 0, numPairs(NUM_SNP)), threshold: { kind: 'single' as const, above: float32BitsOf(threshold) }, records: true };
    const result = await gemm.finalizePairs(request);
    if (result.kind !== 'done') throw new Error(`declined: ${result.reason}`);
    const quadRequest = { tileRows: 4, tileCols: 8 } as QuadDeviceRequest;
    const words = quadRecordWords(result.records.words, result.records.count, quadRequest, NUM_SNP);
    result.records.release();
    const passing = [...want].filter(([, v]) => Math.fround(v) > threshold);
    expect(passing.length).toBe(30);
    const got = Array.from({ length: words.length / 5 }, (_, n) => ({ key: [...words.subarray(5 * n, 5 * n + 4)].join(','), bits: words[5 * n + 4] }));
    expect(got.map((g) => g.key).sort()).toEqual(passing.map(([key]) => key).sort());
    for (const g of got) expect(g.bits).toBe(float32BitsOf(want.get(g.key)!));
    // The host's order: tiles of 4 row pairs × 8 column pairs (row tiles outer), row-major within a tile.
    const tileKey = (key: string): number[] => {
      const [i, j, k, l] = key.split(',').map(Number);
      const row = (j * (j - 1)) / 2 + i;
      const col = k * NUM_SNP - (k * (k + 1)) / 2 + l - k - 1;
      return [Math.floor(row / 4), Math.floor(col / 8), row, col];
    };
    const order = got.map((g) => tileKey(g.key));
    for (let n = 1; n < order.length; n++) expect(compareLists(order[n - 1], order[n])).toBeLessThan(0);
  }, 300_000);
});

describe('quadDeviceRects: the rank\'s tiles as large rectangles, every quadruple once', () => {
  it('covers each part\'s quadruples exactly, with no cell of another part, for many sizes, parts and limits', () => {
    for (const numVector of [5, 9, 17, 26]) {
      const total = numPairs(numVector);
      for (const [rowsPerTile, colsPerTile] of [[4, 8], [7, 5], [16, 16]]) {
        for (const numPart of [1, 3, 7]) {
          // Each quadruple's owning part (cell index row · total + column), and cells claimed by two parts.
          const owner = new Int32Array(total * total).fill(-1);
          let claimedTwice = 0;
          for (let part = 0; part < numPart; part++) {
            const tiles = quadPlan({ numVector, rowsPerTile, colsPerTile, numPart, partIdx: part });
            const want = tiles.reduce((sum, tile) => sum + quadsOfTile(numVector, tile), 0);
            for (const maxPairs of [1, 200, 5000, 1e9]) {
              for (const rampHeadQuads of [[], [1], [3, 40, 700]]) {
                const rects = quadDeviceRects(tiles, { numPairs: total, maxPairs, colsPerTile, numVector, rampHeadQuads });
                expect(rects.flatMap((r) => r.tiles)).toEqual(tiles);
                expectRampHeads(numVector, rects, rampHeadQuads);
                let quads = 0;
                for (const rect of rects) {
                  const rows = rowPairsOf(rect.rowFirst, rect.rowEnd);
                  const cols = colPairsOf(numVector, rect.colFirst, rect.colEnd);
                  for (let r = 0; r < rows.i.length; r++) {
                    for (let c = 0; c < cols.k.length; c++) {
                      if (rows.j[r] >= cols.k[c]) continue;
                      const cell = (rect.rowFirst + r) * total + rect.colFirst + c;
                      if (owner[cell] !== -1 && owner[cell] !== part) claimedTwice++;
                      owner[cell] = part;
                      quads++;
                    }
                  }
                  const area = (rect.rowEnd - rect.rowFirst) * (rect.colEnd - rect.colFirst);
                  if (rect.tiles.length > 1) expect(area).toBeLessThanOrEqual(maxPairs);
                }
                expect(quads).toBe(want);
              }
            }
          }
          expect(claimedTwice).toBe(0);
          expect(owner.filter((part) => part !== -1).length).toBe((numVector * (numVector - 1) * (numVector - 2) * (numVector - 3)) / 24);
        }
      }
    }
  }, 120_000);

  it('merges whole bands into one rectangle when the limit allows', () => {
    const tiles = quadPlan({ numVector: 40, rowsPerTile: 16, colsPerTile: 16, numPart: 1, partIdx: 0 });
    const rects = quadDeviceRects(tiles, { numPairs: numPairs(40), maxPairs: 1e9, colsPerTile: 16, numVector: 40, rampHeadQuads: [] });
    expect(rects).toHaveLength(1);
    expect(tiles.length).toBeGreaterThan(100);
  });
});

function float32BitsOf(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0];
}

function compareLists(a: readonly number[], b: readonly number[]): number {
  for (let t = 0; t < a.length; t++) if (a[t] !== b[t]) return a[t] - b[t];
  return 0;
}

/**
 * The ramp's heads come first, one band each, and hold the targets in order: every head's requests but its last stay
 * below its target, its last reaches it (unless the tiles ran out), and nothing after the heads is a head.
 */
function expectRampHeads(numVector: number, rects: readonly QuadDeviceRect[], targets: readonly number[]): void {
  let at = 0;
  for (const target of targets) {
    let quads = 0;
    while (at < rects.length && quads < target) {
      const rect = rects[at++];
      expect(rect.rampHead).toBe(true);
      expect(new Set(rect.tiles.map((t) => t.rowFirst)).size).toBe(1);
      quads += quadsOfRect(numVector, rect);
    }
    if (at < rects.length) expect(quads).toBeGreaterThanOrEqual(target);
  }
  for (const rect of rects.slice(at)) expect(rect.rampHead ?? false).toBe(false);
}

describe('quadColumnChunks: a rank\'s tiles by column chunks, each tile once, in plan order', () => {
  it('covers every tile once, chunks within the limit on the tile grid, tiles in plan order', () => {
    for (const numVector of [9, 17, 26]) {
      const total = numPairs(numVector);
      for (const [rowsPerTile, colsPerTile] of [[4, 8], [7, 5]]) {
        for (const numPart of [1, 3]) {
          for (let part = 0; part < numPart; part++) {
            const tiles = quadPlan({ numVector, rowsPerTile, colsPerTile, numPart, partIdx: part });
            for (const maxCols of [1, colsPerTile, 3 * colsPerTile + 1, total]) {
              const chunks = quadColumnChunks(tiles, { colsPerTile, maxCols, numPairs: total });
              expect(chunks.flatMap((c) => c.tiles).length).toBe(tiles.length);
              expect(new Set(chunks.flatMap((c) => c.tiles))).toEqual(new Set(tiles));
              for (const [n, chunk] of chunks.entries()) {
                // A chunk holds at most max(maxCols, one tile) columns, starts on the grid, holds its tiles' columns.
                expect(chunk.colEnd - chunk.colFirst).toBeLessThanOrEqual(Math.max(colsPerTile, maxCols));
                if (n > 0) expect(chunk.colFirst).toBeGreaterThanOrEqual(chunks[n - 1].colEnd);
                for (const tile of chunk.tiles) {
                  expect(tile.colFirst).toBeGreaterThanOrEqual(chunk.colFirst);
                  expect(tile.colEnd).toBeLessThanOrEqual(chunk.colEnd);
                }
                const order = chunk.tiles.map((t) => tiles.indexOf(t));
                expect(order).toEqual([...order].sort((a, b) => a - b));
              }
              if (maxCols >= total) expect(chunks).toHaveLength(tiles.length > 0 ? 1 : 0);
            }
          }
        }
      }
    }
  });
});
