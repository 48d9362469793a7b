// 4-way host scoring (quadCells.ts, quadScores.ts, finalizeEpistasisQuads) against a per-quadruple computation: tallies
// of a tile counted sample by sample from random genotypes in this test (the products quadTallyPlan names), each
// quadruple's table counted from the genotypes; the batch scorer's K2, MI and IG must be epistasisScore's doubles of
// that table bit for bit (the search rescores candidates with it) and near the textbook scores; finalize must give
// every unique quadruple of the tile once, with its engine value. Dense (no missing call) and with missing calls.
import { describe, expect, it } from 'vitest';
import { quadTallyPlan, QuadTileScorer, finalizeEpistasisQuads } from '../../../src/analyses/epistasis/epistasisQuads.js';
import { engineValueOf, epistasisScore, k2ScaleOf, k2TableSlack, MarginalScratch, ScoreTables } from '../../../src/analyses/epistasis/epistasisScores.js';
import { colPairsOf, rowPairsOf } from '../../../src/parallel/index.js';
import { ChecksumAccumulator } from '../../../src/core/checksum.js';
import type { QuadTileView, ResultSink, TupleRow } from '../../../src/analyses/analysis.js';
import type { EpistasisScore } from '../../../src/core/types.js';
import { blockOf, planesOf, randomGenotypes, seeded, type Genotypes } from './epistasisBlocks.js';
import { scoreOf } from './naiveEpistasis.js';

const NUM_VECTOR = 14;
const NUM_FIELD = 61;
const NUM_CONTROLS = 27;

/** Whether plane `plane` (3·class + kind: g = 0, g = 1, called) of vector v has sample s. */
function hasBit(genotypes: Genotypes, v: number, plane: number, s: number): boolean {
  const cls = Math.floor(plane / 3), kind = plane % 3;
  if ((s < NUM_CONTROLS ? 0 : 1) !== cls) return false;
  const g = genotypes.g[v * genotypes.numField + s];
  return kind === 2 ? g !== 3 : g === kind;
}

/** Samples where every (vector, plane) of `terms` has its bit. */
function countAll(genotypes: Genotypes, terms: readonly (readonly [number, number])[]): number {
  let count = 0;
  for (let s = 0; s < genotypes.numField; s++) if (terms.every(([v, plane]) => hasBit(genotypes, v, plane, s))) count++;
  return count;
}

interface Tile {
  readonly view: QuadTileView;
  readonly tallies: Uint32Array[];
  readonly vectorTallies: Uint32Array[] | null;
}

/** Rows [rowFirst, rowEnd) × columns [colFirst, colEnd) of the quad plan with tallies counted sample by sample. */
function tileOf(genotypes: Genotypes, sparse: boolean, rows: [number, number], cols: [number, number]): Tile {
  const plan = quadTallyPlan(sparse);
  const r = rowPairsOf(rows[0], rows[1]);
  const c = colPairsOf(NUM_VECTOR, cols[0], cols[1]);
  const vectorFirst = c.k[0];
  const vectorEnd = Math.max(...c.l) + 1;
  const numRows = r.i.length, numCols = c.k.length, numVectorCols = vectorEnd - vectorFirst;
  const tallies = plan.termGroups.map(([[rowPair, colPair]]) => {
    const [x, y] = plan.rowPlanePairs[rowPair];
    const [z, w] = plan.colPlanePairs[colPair];
    const tally = new Uint32Array(numRows * numCols);
    for (let row = 0; row < numRows; row++) for (let col = 0; col < numCols; col++) {
      tally[row * numCols + col] = countAll(genotypes, [[r.i[row], x], [r.j[row], y], [c.k[col], z], [c.l[col], w]]);
    }
    return tally;
  });
  const vectorTallies = plan.vectorTermGroups?.map(([[rowPair, plane]]) => {
    const [x, y] = plan.rowPlanePairs[rowPair];
    const tally = new Uint32Array(numRows * numVectorCols);
    for (let row = 0; row < numRows; row++) for (let v = 0; v < numVectorCols; v++) {
      tally[row * numVectorCols + v] = countAll(genotypes, [[r.i[row], x], [r.j[row], y], [vectorFirst + v, plane]]);
    }
    return tally;
  }) ?? null;
  const view: QuadTileView = {
    vectors: blockOf(planesOf(genotypes, NUM_CONTROLS), 0), rowI: r.i, rowJ: r.j, colK: c.k, colL: c.l, vectorFirst, numVectorCols,
  };
  return { view, tallies, vectorTallies };
}

/** The quadruple's table counted from the genotypes: cell 27a + 9b + 3c + d, samples called at all four. */
function tableOf(genotypes: Genotypes, snps: readonly number[]): { controls: number[]; cases: number[] } {
  const controls = new Array<number>(81).fill(0), cases = new Array<number>(81).fill(0);
  for (let s = 0; s < genotypes.numField; s++) {
    const g = snps.map((v) => genotypes.g[v * genotypes.numField + s]);
    if (g.includes(3)) continue;
    (s < NUM_CONTROLS ? controls : cases)[g.reduce((cell, x) => 3 * cell + x, 0)]++;
  }
  return { controls, cases };
}

const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];
const tables = new ScoreTables(NUM_FIELD + k2TableSlack(4));

for (const sparse of [false, true]) {
  describe(`4-way batch scoring, ${sparse ? 'with missing calls' : 'dense'}`, () => {
    const genotypes = randomGenotypes(seeded(sparse ? 7 : 8), NUM_VECTOR, NUM_FIELD, sparse ? 0.08 : 0);
    // Row pairs (0,1) … of the first tile reach 66 valid columns (more than a batch of 64); the second tile's columns
    // start past k = 0, so its vector tallies start past vector 0.
    const tiles = [tileOf(genotypes, sparse, [0, 12], [0, 91]), tileOf(genotypes, sparse, [40, 70], [20, 61])];

    it('scores are epistasisScore of the table counted from genotypes, bit for bit, and near the textbook', () => {
      let numChecked = 0;
      for (const score of SCORES) {
        const scorer = new QuadTileScorer({ score, sparse, tables });
        for (const { view, tallies, vectorTallies } of tiles) {
          const scores = new Float64Array(view.colK.length);
          for (let row = 0; row < view.rowI.length; row++) {
            const colFirst = view.colK.findIndex((k) => k > view.rowJ[row]);
            if (colFirst < 0) continue;
            const count = view.colK.length - colFirst;
            scorer.scoreRow(view, tallies, vectorTallies, row, colFirst, count, scores);
            for (let q = 0; q < count; q++) {
              const snps = [view.rowI[row], view.rowJ[row], view.colK[colFirst + q], view.colL[colFirst + q]];
              const table = tableOf(genotypes, snps);
              expect(scores[q]).toBe(epistasisScore(score, tables, table, 4, new MarginalScratch()));
              expect(scores[q]).toBeCloseTo(scoreOf(score, table, 4), 9);
              numChecked++;
            }
          }
        }
      }
      expect(numChecked).toBeGreaterThan(3 * 500);
    });

    it('finalize gives each unique quadruple of a tile once, with its engine value', () => {
      for (const score of SCORES) {
        for (const { view, tallies, vectorTallies } of tiles) {
          const values = new Map<string, number>();
          const refuse = (): never => { throw new Error('4-way epistasis gives one value per quadruple'); };
          const sink: ResultSink = {
            threshold: { kind: 'none' }, checksum: new ChecksumAccumulator(), writesRecords: false,
            addPairRow: refuse, addPairEntryRow: refuse, addTripleRow: refuse, addPairCountRow: refuse, addRecordWords: refuse, addHistogramCounts: refuse,
            addTupleValueRow(tuple: TupleRow, row: Float64Array): void {
              for (let t = 0; t < tuple.count; t++) {
                const key = `${tuple.i},${tuple.j},${tuple.k},${tuple.first + t}`;
                expect(values.has(key)).toBe(false);
                values.set(key, row[t]);
              }
            },
          };
          const numQuads = finalizeEpistasisQuads({ score, sparse, tables }, { sink, verifier: null }, view, tallies, vectorTallies);
          const want = new Map<string, number>();
          for (let row = 0; row < view.rowI.length; row++) for (let col = 0; col < view.colK.length; col++) {
            const snps = [view.rowI[row], view.rowJ[row], view.colK[col], view.colL[col]];
            if (snps[1] >= snps[2]) continue;
            const value = epistasisScore(score, tables, tableOf(genotypes, snps), 4, new MarginalScratch());
            want.set(snps.join(','), engineValueOf(score, value, k2ScaleOf(tables)));
          }
          expect(numQuads).toBe(want.size);
          expect(values).toEqual(want);
        }
      }
    });
  });
}
