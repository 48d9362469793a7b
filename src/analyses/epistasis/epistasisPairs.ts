// Host finalize of 2-way case-control epistasis: each pair's 3 × 3 × 2 genotype table from the GEMM tallies (cells in
// canonical order, epistasisCells.ts), its score and its engine value into the sink — the hot path of a 2-way run, so
// tables are built in int32 registers (no per-pair arrays) and K2 is summed inline, by k2Score's operations in its order.
import type { EpistasisScore } from '../../core/types.js';
import type { FinalizeContext, PairBlock, VectorBlockView } from '../index.js';
import { KIND_G0, KIND_G1, NUM_CLASSES, genotypeCellsInPlace, planeOf, popcountWords } from './epistasisPlanes.js';
import { engineValueOf, k2ScaleOf, MarginalScratch, mutualInformation, scoreOfEntries, type CaseControlCells, type ScoreTables } from './epistasisScores.js';
import { transposePairCellsInPlace } from './epistasisCells.js';
import type { BlockGenotypeCounts } from './epistasisFinalize.js';
import { finalizeDensePairsNatively } from './nativeDensePairs.js';

/** What finalize needs of the run: the score, the class sizes, the score tables. */
export interface EpistasisFinalizeSettings {
  readonly score: EpistasisScore;
  readonly sparse: boolean;
  readonly classSizes: readonly [controls: number, cases: number];
  readonly tables: ScoreTables;
  /** Each class's word range [first, end) of a plane (its fields), where its planes may have bits. */
  readonly classWords: readonly (readonly [first: number, end: number])[];
  /**
   * Who scores a dense run's pairs: the native scorer where it is built (nativeDensePairs.ts; the same values, checksum
   * and top-N, bit for bit) or JavaScript; absent: JavaScript.
   */
  readonly densePairScorer?: 'native' | 'js';
}

/** Per-vector class genotype counts of a block's vectors [first, first + count): 4 per vector (g0, g1 of controls, then of cases). */
export function genotypeCountsOf(settings: EpistasisFinalizeSettings, block: VectorBlockView, first: number, count: number): Int32Array {
  const { words, numPlanes, wordsPerPlane } = block.planes;
  const counts = new Int32Array(4 * count);
  for (let v = 0; v < count; v++) {
    for (let cls = 0; cls < NUM_CLASSES; cls++) {
      // A class plane has no bit outside its class's words (PlaneLayout.planeFieldRanges).
      const [wordFirst, wordEnd] = settings.classWords[cls];
      for (const kind of [KIND_G0, KIND_G1]) {
        const base = ((first + v) * numPlanes + planeOf(cls, kind)) * wordsPerPlane;
        counts[4 * v + 2 * cls + kind] = popcountWords(words, base + wordFirst, base + wordEnd);
      }
    }
  }
  return counts;
}

/** Scores of every unique pair of `block` into the sink; `tallies` as pairTermGroups(sparse) orders them. */
export function finalizeEpistasisPairs(
  settings: EpistasisFinalizeSettings, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[], counts: BlockGenotypeCounts,
): number {
  const rowsReal = Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, block.cols.numVectorReal - block.colFirst);
  if (rowsReal <= 0 || colsReal <= 0) return 0;
  if (!settings.sparse && settings.densePairScorer === 'native') {
    const numPairs = finalizeDensePairsNatively(settings, ctx, block, tallies, counts);
    if (numPairs !== null) return numPairs;
  }
  const values = new Float64Array(colsReal);
  const score = settings.sparse ? null : new DensePairScorer(settings, block, tallies, counts);
  const scratch = new SparsePairScratch(settings);
  let numPairs = 0;
  for (let r = 0; r < rowsReal; r++) {
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    if (c0 >= colsReal) continue;
    if (score === null) scratch.scoreRow(block, tallies, r, c0, colsReal, values);
    else score.scoreRow(r, c0, colsReal, values);
    ctx.sink.addTupleValueRow({ i: block.rows.vectorFirst + block.rowFirst + r, j: null, first: block.cols.vectorFirst + block.colFirst + c0, count: colsReal - c0 }, values);
    numPairs += colsReal - c0;
  }
  return numPairs;
}

/**
 * Dense runs (no missing call): the GEMM gives per class n_xy = #(g_i = x, g_j = y) for x, y ∈ {0, 1} (group
 * 4·cls + 2x + y); with the vectors' class counts r_x, k_y and the class size N the cells are n_xy, r_x − n_x0 − n_x1,
 * k_y − n_0y − n_1y and N − r_0 − r_1 − k_0 − k_1 + Σ n — inclusion–exclusion, exact in int32 (counts < 2^31).
 */
class DensePairScorer {
  /** Class genotype counts of the rows' and the columns' whole blocks (4 per vector, from the block's first vector). */
  private readonly rowCounts: Int32Array;
  private readonly colCounts: Int32Array;
  private readonly entries = new Float64Array(18);
  /** The entries as a table (views made once: MI and IG read them for every pair). */
  private readonly cells: CaseControlCells;
  private readonly k2Scale: number;
  /** IG: MI of each row's and column's own marginal table (snpMutualInformation), by local index; else empty. */
  private readonly rowMI: Float64Array;
  private readonly colMI: Float64Array;

  constructor(
    private readonly settings: EpistasisFinalizeSettings, private readonly block: PairBlock, private readonly tallies: readonly Uint32Array[],
    counts: BlockGenotypeCounts,
  ) {
    this.rowCounts = counts.of(block.rows);
    this.colCounts = counts.of(block.cols);
    this.k2Scale = k2ScaleOf(settings.tables);
    this.cells = { controls: this.entries.subarray(0, 9), cases: this.entries.subarray(9, 18) };
    const ig = settings.score === 'ig';
    this.rowMI = ig ? snpMutualInformations(settings, this.rowCounts, block.rowFirst, block.numRows) : new Float64Array(0);
    this.colMI = ig ? snpMutualInformations(settings, this.colCounts, block.colFirst, block.numCols) : new Float64Array(0);
  }

  /** values[c − c0] for the pairs (row r, col c), c ∈ [c0, colsReal). */
  scoreRow(r: number, c0: number, colsReal: number, values: Float64Array): void {
    const { tallies, rowCounts, colCounts, k2Scale } = this;
    const [t0, t1, t2, t3, t4, t5, t6, t7] = tallies;
    const [controls, cases] = this.settings.classSizes;
    const rowAt = 4 * (this.block.rowFirst + r);
    const a0 = rowCounts[rowAt], a1 = rowCounts[rowAt + 1], b0 = rowCounts[rowAt + 2], b1 = rowCounts[rowAt + 3];
    const colBase = 4 * this.block.colFirst;
    const lf = this.settings.tables.logFactorial;
    const k2 = this.settings.score === 'k2';
    const e = this.entries;
    // Blocks are disjoint ranges of SNPs (or one block, strictUpper): the row SNP is later for all columns or none.
    const transposed = this.block.rows.vectorFirst + this.block.rowFirst + r > this.block.cols.vectorFirst + this.block.colFirst + c0;
    let at = r * this.block.numCols + c0;
    for (let c = c0; c < colsReal; c++, at++) {
      const colAt = colBase + 4 * c;
      const ka0 = colCounts[colAt], ka1 = colCounts[colAt + 1], kb0 = colCounts[colAt + 2], kb1 = colCounts[colAt + 3];
      // Controls' cells x0..x8 and cases' y0..y8, cell 3·g_i + g_j.
      const n00 = t0[at] | 0, n01 = t1[at] | 0, n10 = t2[at] | 0, m00 = t4[at] | 0, m01 = t5[at] | 0, m10 = t6[at] | 0;
      const x0 = n00, x4 = t3[at] | 0, y0 = m00, y4 = t7[at] | 0;
      // Cells 3·g_i + g_j, or 3·g_j + g_i when the row SNP is the later one (canonical order, epistasisCells.ts):
      // transposing swaps the cells 1 ↔ 3, 2 ↔ 6 and 5 ↔ 7.
      const x1 = transposed ? n10 : n01, x3 = transposed ? n01 : n10, y1 = transposed ? m10 : m01, y3 = transposed ? m01 : m10;
      const xRow0 = a0 - n00 - n01, xRow1 = a1 - n10 - x4, xCol0 = ka0 - n00 - n10, xCol1 = ka1 - n01 - x4;
      const yRow0 = b0 - m00 - m01, yRow1 = b1 - m10 - y4, yCol0 = kb0 - m00 - m10, yCol1 = kb1 - m01 - y4;
      const x2 = transposed ? xCol0 : xRow0, x6 = transposed ? xRow0 : xCol0, x5 = transposed ? xCol1 : xRow1, x7 = transposed ? xRow1 : xCol1;
      const y2 = transposed ? yCol0 : yRow0, y6 = transposed ? yRow0 : yCol0, y5 = transposed ? yCol1 : yRow1, y7 = transposed ? yRow1 : yCol1;
      const x8 = controls - a0 - a1 - ka0 - ka1 + x0 + x1 + x3 + x4;
      const y8 = cases - b0 - b1 - kb0 - kb1 + y0 + y1 + y3 + y4;
      let value: number;
      if (k2) {
        // k2Score's sum, cell by cell: lf[a + b + 1] − lf[a] − lf[b].
        let sum = lf[x0 + y0 + 1] - lf[x0] - lf[y0];
        sum += lf[x1 + y1 + 1] - lf[x1] - lf[y1];
        sum += lf[x2 + y2 + 1] - lf[x2] - lf[y2];
        sum += lf[x3 + y3 + 1] - lf[x3] - lf[y3];
        sum += lf[x4 + y4 + 1] - lf[x4] - lf[y4];
        sum += lf[x5 + y5 + 1] - lf[x5] - lf[y5];
        sum += lf[x6 + y6 + 1] - lf[x6] - lf[y6];
        sum += lf[x7 + y7 + 1] - lf[x7] - lf[y7];
        sum += lf[x8 + y8 + 1] - lf[x8] - lf[y8];
        value = Math.min(15.5, Math.max(0, 15 - sum * k2Scale));
      } else {
        e[0] = x0; e[1] = x1; e[2] = x2; e[3] = x3; e[4] = x4; e[5] = x5; e[6] = x6; e[7] = x7; e[8] = x8;
        e[9] = y0; e[10] = y1; e[11] = y2; e[12] = y3; e[13] = y4; e[14] = y5; e[15] = y6; e[16] = y7; e[17] = y8;
        const mi = mutualInformation(this.settings.tables, this.cells, 9);
        // interactionInformation: MI(AB) − MI(A) − MI(B), A the earlier SNP.
        value = this.settings.score === 'mi' ? engineValueOf('mi', mi, k2Scale)
          : engineValueOf('ig', mi - (transposed ? this.colMI[c] : this.rowMI[r]) - (transposed ? this.rowMI[r] : this.colMI[c]), k2Scale);
      }
      values[c - c0] = value;
    }
  }
}

/**
 * MI of each SNP's own marginal table, vectors [first, first + count) of a block's class genotype counts (4 per vector):
 * without missing calls a pair's table sums to these over the other SNP (x0 + x1 + x2 = n00 + n01 + (a0 − n00 − n01) =
 * a0, …), so interactionInformation's MI(A) and MI(B) are the SNPs' own — the same integers, the same doubles.
 */
function snpMutualInformations(settings: EpistasisFinalizeSettings, counts: Int32Array, first: number, count: number): Float64Array {
  const [controls, cases] = settings.classSizes;
  const out = new Float64Array(count);
  const numReal = Math.min(count, counts.length / 4 - first);
  for (let v = 0; v < numReal; v++) {
    const at = 4 * (first + v);
    const table = { controls: [counts[at], counts[at + 1], controls - counts[at] - counts[at + 1]], cases: [counts[at + 2], counts[at + 3], cases - counts[at + 2] - counts[at + 3]] };
    out[v] = mutualInformation(settings.tables, table, 3);
  }
  return out;
}

/** Runs with missing calls: per class every product over {g0, g1, P}² from the GEMM (group 9·cls + 3x + y). */
class SparsePairScratch {
  private readonly entries = new Float64Array(18);
  private readonly marginals = new MarginalScratch();
  private readonly k2Scale: number;

  constructor(private readonly settings: EpistasisFinalizeSettings) {
    this.k2Scale = k2ScaleOf(settings.tables);
  }

  scoreRow(block: PairBlock, tallies: readonly Uint32Array[], r: number, c0: number, colsReal: number, values: Float64Array): void {
    const e = this.entries;
    const { score, tables } = this.settings;
    for (let c = c0; c < colsReal; c++) {
      const at = r * block.numCols + c;
      for (let g = 0; g < 18; g++) e[g] = tallies[g][at];
      genotypeCellsInPlace(e, 0, 2);
      genotypeCellsInPlace(e, 9, 2);
      // Canonical order (epistasisCells.ts): the earlier SNP's genotype slowest.
      if (block.rows.vectorFirst + block.rowFirst + r > block.cols.vectorFirst + block.colFirst + c) {
        transposePairCellsInPlace(e, 0);
        transposePairCellsInPlace(e, 9);
      }
      values[c - c0] = engineValueOf(score, scoreOfEntries(score, tables, e, 2, this.marginals), this.k2Scale);
    }
  }
}
