// Dense 3-way epistasis (no missing call) asks mGEMM3 for the 2^3 genotype products per class only — 16 term groups,
// not the 54 over {g0, g1, P}^3 — and builds each triple's extended table from them, the block-pair counts and the
// vectors' class counts (epistasisFinalize.ts TripleTableSource): that table must be, entry for entry, the 54-entry
// table counted sample by sample from the genotypes, and the 54-group GEMM's tallies on the same planes.
import { describe, expect, it } from 'vitest';
import { analysis as epistasis } from '../../../src/analyses/epistasis/index.js';
import { BlockGenotypeCounts, TripleTableSource } from '../../../src/analyses/epistasis/epistasisFinalize.js';
import { classWordRanges, tripleTallyPlan } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { ScoreTables } from '../../../src/analyses/epistasis/epistasisScores.js';
import type { EpistasisFinalizeSettings } from '../../../src/analyses/epistasis/epistasisPairs.js';
import { pairCountGroupsOf, type BlockPairCounts, type PairCounts, type TripleSlice, type VectorBlockView } from '../../../src/analyses/analysis.js';
import { PopcountGemmRef } from '../../../src/mgemm/kernels/ref/popcountGemmRef.js';
import type { Tally3Slice } from '../../../src/mgemm/index.js';
import { DEFAULT_PARAM } from '../../../src/core/types.js';
import { blockOf, planesOf, randomGenotypes, seeded, type Genotypes } from './epistasisBlocks.js';

const denseRun = (numControls: number, numField: number): ReturnType<typeof epistasis.forRun> => epistasis.forRun({
  spec: { metric: 'epistasis', numWay: 3, sparse: false, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls, score: 'k2' } },
  numVector: 64, numField,
});

/**
 * The extended table of a triple counted from genotypes (`g[v·numField + s]`, 0–2): per class, entry 9x + 3y + z =
 * samples of the class where i's genotype is x (x = 2: any, P), j's is y, k's is z — written here without planes.
 */
function naiveExtendedTable(gi: Uint8Array, gj: Uint8Array, gk: Uint8Array, numControls: number): number[] {
  const table = new Array<number>(54).fill(0);
  const kinds = (genotype: number): number[] => (genotype === 2 ? [2] : [genotype, 2]);
  for (let s = 0; s < gi.length; s++) {
    const base = s < numControls ? 0 : 27;
    for (const x of kinds(gi[s])) for (const y of kinds(gj[s])) for (const z of kinds(gk[s])) table[base + 9 * x + 3 * y + z]++;
  }
  return table;
}

describe('dense 3-way epistasis: 16 triple groups and the 54-entry table', () => {
  it('the dense plan asks mGEMM3 for 16 single-term groups over 8 plane pairs, and 8 block-pair count groups; sparse keeps 54', () => {
    const plan = denseRun(40, 90).triples!.plan;
    expect(plan.termGroups.length).toBeLessThanOrEqual(16);
    expect(plan.termGroups.length).toBe(16);
    expect(plan.termGroups.every((group) => group.length === 1)).toBe(true);
    expect(plan.planePairs.length).toBe(8);
    expect(pairCountGroupsOf(plan).length).toBe(8);
    const sparse = tripleTallyPlan({ sparse: true });
    expect(sparse.termGroups.length).toBe(54);
    expect(pairCountGroupsOf(sparse).length).toBe(0);
  });

  for (const [numControls, numCases, seed] of [[37, 58, 3], [130, 5, 8], [0, 41, 11]] as const) {
    it(`16-group tables = the genotypes' 54-entry tables = the 54-group GEMM's, ${numControls} controls + ${numCases} cases, one block and three`, async () => {
      const numField = numControls + numCases;
      const random = seeded(seed);
      const genotypes: Genotypes[] = [7, 5, 9].map((numVector) => randomGenotypes(random, numVector, numField, 0));
      const blocks = genotypes.map((g, b) => blockOf(planesOf(g, numControls), [0, 7, 12][b]));
      const run = denseRun(numControls, numField);
      const plan = run.triples!.plan;
      const settings: EpistasisFinalizeSettings = {
        score: 'k2', sparse: false, classSizes: [numControls, numCases], tables: new ScoreTables(numField + 27), classWords: classWordRanges(numControls, numField),
      };
      const ref = new PopcountGemmRef();
      const pairCounts = async (a: VectorBlockView, b: VectorBlockView): Promise<PairCounts> => {
        const tallies = await ref.run({
          a: a.planes, aFirst: 0, aCount: a.numVectorReal, b: b.planes, bFirst: 0, bCount: b.numVectorReal, termGroups: [...pairCountGroupsOf(plan)], strictUpper: false,
        });
        return { data: tallies[0], numCols: b.numVectorReal, groups: tallies };
      };
      const counts = new BlockGenotypeCounts(settings);
      // One block for i, j and k (a slab's tetrahedron), and three blocks (its prisms and cubes).
      for (const [xi, yi, zi] of [[0, 0, 0], [0, 1, 2], [2, 0, 1]] as const) {
        const [x, y, z] = [blocks[xi], blocks[yi], blocks[zi]];
        const blockPairs: BlockPairCounts = { ij: await pairCounts(x, y), ik: await pairCounts(x, z), jk: await pairCounts(y, z), ji: null };
        const slices: Tally3Slice[] = [];
        for (let yRow = 0; yRow < y.numVectorReal; yRow++) slices.push({ yRow, xFirst: 0, xCount: x.numVectorReal, zFirst: 0, zCount: z.numVectorReal });
        const dense = await ref.run3({ x: x.planes, y: y.planes, z: z.planes, planePairs: plan.planePairs, termGroups: plan.termGroups, slices });
        const sparsePlan = tripleTallyPlan({ sparse: true });
        const full = await ref.run3({ x: x.planes, y: y.planes, z: z.planes, planePairs: sparsePlan.planePairs, termGroups: sparsePlan.termGroups, slices });
        expect(dense[0].length).toBe(16);
        const e = new Float64Array(54);
        let numChecked = 0;
        slices.forEach((s, idx) => {
          const slice: TripleSlice = { iBlock: x, iFirst: 0, numI: s.xCount, jBlock: y, jLocal: s.yRow, kBlock: z, kFirst: 0, numK: s.zCount };
          const source = new TripleTableSource(settings, slice, dense[idx], blockPairs, counts);
          for (let ri = 0; ri < s.xCount; ri++) {
            for (let rk = 0; rk < s.zCount; rk++) {
              source.fill(e, ri, rk);
              const rowOf = (g: Genotypes, v: number): Uint8Array => g.g.subarray(v * numField, (v + 1) * numField);
              const want = naiveExtendedTable(rowOf(genotypes[xi], ri), rowOf(genotypes[yi], s.yRow), rowOf(genotypes[zi], rk), numControls);
              const gemm54 = full[idx].map((tallies) => tallies[ri * s.zCount + rk]);
              if (!want.every((count, m) => e[m] === count && gemm54[m] === count)) {
                throw new Error(`triple (${ri}, ${s.yRow}, ${rk}) of blocks ${xi}, ${yi}, ${zi}: 16-group ${Array.from(e)}, 54-group ${gemm54}, genotypes ${want}`);
              }
              numChecked++;
            }
          }
        });
        expect(numChecked).toBe(x.numVectorReal * y.numVectorReal * z.numVectorReal);
      }
    });
  }
});
