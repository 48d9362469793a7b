// Host finalize of case-control epistasis: each tuple's extended tables (per class, products over {g0, g1, P}) from
// the GEMM tallies — in a dense run the products with P from block-pair counts (3-way), per-vector class counts and
// class sizes —, inclusion–exclusion to the 3^k × 2 genotype cells in canonical order (epistasisCells.ts), the score,
// and its engine value (epistasisScores.ts) into the sink.
import type { BlockPairCounts, FinalizeContext, TripleSlice, VectorBlockView } from '../index.js';
import { genotypeCellsInPlace, NUM_CLASSES } from './epistasisPlanes.js';
import { canonicalTripleCells, tripleStride } from './epistasisCells.js';
import { engineValueOf, k2ScaleOf, MarginalScratch, scoreOfEntries } from './epistasisScores.js';
import { genotypeCountsOf, type EpistasisFinalizeSettings } from './epistasisPairs.js';

export { finalizeEpistasisPairs, type EpistasisFinalizeSettings } from './epistasisPairs.js';

/**
 * Per-vector class genotype counts of whole blocks (epistasisPairs.ts genotypeCountsOf: 4 per vector, g0 and g1 of
 * controls, then of cases), computed once per block: a j-slice would otherwise count its rows and columns again.
 */
export class BlockGenotypeCounts {
  // Keyed by the block's place, not its view: a finalize worker gets new views of the same block with every task.
  private readonly counts = new Map<string, Int32Array>();

  constructor(private readonly settings: EpistasisFinalizeSettings) {}

  /** Class genotype counts of every vector of `block`: 4 per vector (genotypeCountsOf), computed once per block. */
  of(block: VectorBlockView): Int32Array {
    const key = `${block.blockIdx}:${block.vectorFirst}:${block.numVectorReal}`;
    let counts = this.counts.get(key);
    if (counts === undefined) {
      counts = genotypeCountsOf(this.settings, block, 0, block.numVectorReal);
      this.counts.set(key, counts);
    }
    return counts;
  }
}

/** What a dense run's finalize reads besides the 16 triple tallies: the block-pair counts and per-vector counts. */
interface DenseSources {
  readonly ij: readonly Uint32Array[];
  readonly ik: readonly Uint32Array[];
  readonly jk: readonly Uint32Array[];
  readonly ijCols: number;
  readonly ikCols: number;
  readonly jkCols: number;
  readonly iCounts: Int32Array;
  readonly jCounts: Int32Array;
  readonly kCounts: Int32Array;
}

function denseSourcesOf(slice: TripleSlice, pairCounts: BlockPairCounts | null, counts: BlockGenotypeCounts): DenseSources {
  const groupsOf = (name: 'ij' | 'ik' | 'jk'): readonly Uint32Array[] => {
    const groups = pairCounts?.[name].groups;
    if (groups === undefined || groups.length !== 4 * NUM_CLASSES) throw new Error(`dense epistasis 3-way needs its ${4 * NUM_CLASSES} block-pair count groups (${name})`);
    return groups;
  };
  const pc = pairCounts as BlockPairCounts;
  return {
    ij: groupsOf('ij'), ik: groupsOf('ik'), jk: groupsOf('jk'), ijCols: pc.ij.numCols, ikCols: pc.ik.numCols, jkCols: pc.jk.numCols,
    iCounts: counts.of(slice.iBlock), jCounts: counts.of(slice.jBlock), kCounts: counts.of(slice.kBlock),
  };
}

/**
 * The extended tables of a j-slice's triples (54 entries per triple, class-major, entry 9x + 3y + z for kinds x of i,
 * y of j, z of k; 2 = P) from the tallies of tripleTallyPlan({ sparse }). With missing calls: the 54 tallies.
 * Dense: the genotype products from tallies group `8·cls + 4x + 2y + z`, one P from the block-pair counts of the other
 * two (group `4·cls + 2x + y` of row and column vector), two P from the third vector's class count, PPP the class
 * size — every entry the integer the 54-group plan's GEMM gives.
 */
export class TripleTableSource {
  private readonly dense: DenseSources | null;

  constructor(
    private readonly settings: EpistasisFinalizeSettings, private readonly slice: TripleSlice, private readonly tallies: readonly Uint32Array[],
    pairCounts: BlockPairCounts | null, counts: BlockGenotypeCounts,
  ) {
    this.dense = settings.sparse ? null : denseSourcesOf(slice, pairCounts, counts);
  }

  /** Triple (slice row ri, slice column rk)'s extended tables into e[0 … 53]. */
  fill(e: Float64Array, ri: number, rk: number): void {
    const { tallies, dense, slice } = this;
    const at = ri * slice.numK + rk;
    if (dense === null) {
      for (let g = 0; g < 54; g++) e[g] = tallies[g][at];
      return;
    }
    const li = slice.iFirst + ri;
    const jl = slice.jLocal;
    const lk = slice.kFirst + rk;
    for (let cls = 0; cls < NUM_CLASSES; cls++) {
      const base = 27 * cls;
      for (let x = 0; x < 2; x++) {
        for (let y = 0; y < 2; y++) {
          for (let z = 0; z < 2; z++) e[base + 9 * x + 3 * y + z] = tallies[8 * cls + 4 * x + 2 * y + z][at];
          e[base + 9 * x + 3 * y + 2] = dense.ij[4 * cls + 2 * x + y][li * dense.ijCols + jl];
          e[base + 9 * x + 6 + y] = dense.ik[4 * cls + 2 * x + y][li * dense.ikCols + lk];
          e[base + 18 + 3 * x + y] = dense.jk[4 * cls + 2 * x + y][jl * dense.jkCols + lk];
        }
        e[base + 9 * x + 8] = dense.iCounts[4 * li + 2 * cls + x];
        e[base + 18 + 3 * x + 2] = dense.jCounts[4 * jl + 2 * cls + x];
        e[base + 24 + x] = dense.kCounts[4 * lk + 2 * cls + x];
      }
      e[base + 26] = this.settings.classSizes[cls];
    }
  }
}

/**
 * Scores of the triples of one j-slice; `tallies` as tripleTallyPlan({ sparse }) orders them (numI × numK
 * each); a dense run reads `pairCounts` (its plan's pairCountGroups) and the blocks' class counts from `counts`.
 */
export function finalizeEpistasisTriples(
  settings: EpistasisFinalizeSettings, ctx: FinalizeContext, slice: TripleSlice, tallies: readonly Uint32Array[],
  pairCounts: BlockPairCounts | null, counts: BlockGenotypeCounts,
): number {
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  if (numIReal <= 0 || numKReal <= 0) return 0;
  const source = new TripleTableSource(settings, slice, tallies, pairCounts, counts);
  const e = new Float64Array(54);
  const canonical = new Float64Array(54);
  const scratch = new MarginalScratch();
  const k2Scale = k2ScaleOf(settings.tables);
  const values = new Float64Array(numKReal);
  const j = jBlock.vectorFirst + jLocal;
  const kFirst = kBlock.vectorFirst + slice.kFirst;
  for (let ri = 0; ri < numIReal; ri++) {
    const i = iBlock.vectorFirst + slice.iFirst + ri;
    for (let rk = 0; rk < numKReal; rk++) {
      const k = kFirst + rk;
      source.fill(e, ri, rk);
      genotypeCellsInPlace(e, 0, 3);
      genotypeCellsInPlace(e, 27, 3);
      // The cells in canonical order (epistasisCells.ts) unless i < j < k already has them so.
      const cells = i < j && j < k ? e : canonicalTripleCells(e, tripleStride(i, j, k), tripleStride(j, i, k), tripleStride(k, i, j), canonical);
      values[rk] = engineValueOf(settings.score, scoreOfEntries(settings.score, settings.tables, cells, 3, scratch), k2Scale);
    }
    ctx.sink.addTupleValueRow({ i, j, first: kFirst, count: numKReal }, values);
  }
  return numIReal * numKReal;
}
