// K2, MI and IG of a batch of quadruples whose cells lie as a structure of arrays (quadCells.ts), with the double
// operations of epistasisScores.ts in the same order for each quadruple — so the same bits as scoreOfEntries and
// epistasisScore — but a loop over the batch per cell: cell outer, quadruple inner, each quadruple's sums still
// taking its cells in cell order. IG's marginal tables are integer sums (exact in any order), each made from a
// table one SNP larger (3 additions per cell) rather than from the 81 cells.
import type { EpistasisScore } from '../../core/types.js';
import { LN2, type ScoreTables } from './epistasisScores.js';
import { QUAD_ENTRIES } from './quadCells.js';

/** Quadruples of a batch at most (a batch's cells: 162 int32 per quadruple, plus IG's 348 marginal entries). */
export const QUAD_BATCH_CAPACITY = 64;

/** A marginal table of IG: the SNPs it keeps (bit t: SNP t of the quadruple), where its entries start, and its source. */
interface MarginalTable {
  readonly subset: number;
  readonly numCell: number;
  readonly base: number;
  /** Per entry (class-major, cell in the kept SNPs' order, lower t slower) the 3 source entries it sums. */
  readonly sources: Int32Array;
}

const SUBSETS_BY_SIZE: readonly (readonly number[])[] = [3, 2, 1].map((size) =>
  Array.from({ length: 14 }, (_, s) => s + 1).filter((subset) => bitCount(subset) === size));

function bitCount(subset: number): number {
  return (subset & 1) + ((subset >> 1) & 1) + ((subset >> 2) & 1) + ((subset >> 3) & 1);
}

/** Cell of genotypes `g` (SNP 0 first) in the table of `subset`: the kept SNPs' genotypes, lower t slower. */
function cellOf(subset: number, g: readonly number[]): number {
  let cell = 0;
  for (let t = 0; t < 4; t++) if ((subset >> t) & 1) cell = 3 * cell + g[t];
  return cell;
}

/**
 * IG's 14 marginal tables, larger first: each sums a table with one SNP more (the full one for triples), so every
 * source precedes the tables made from it. Entries after the 162 of the full table.
 */
const MARGINAL_TABLES: readonly MarginalTable[] = (() => {
  const tables: MarginalTable[] = [];
  const baseOf = new Map<number, number>([[15, 0]]);
  let base = QUAD_ENTRIES;
  for (const subset of SUBSETS_BY_SIZE.flat()) {
    const kept = [0, 1, 2, 3].filter((t) => (subset >> t) & 1);
    // The source: the made table (or the full one) that keeps one more SNP; any works, the sums are exact.
    const source = [...baseOf.keys()].find((s) => bitCount(s) === kept.length + 1 && (s & subset) === subset)!;
    const dropped = [0, 1, 2, 3].find((t) => ((source & ~subset) >> t) & 1)!;
    const numCell = 3 ** kept.length;
    const sourceCells = 3 ** (kept.length + 1);
    const sources = new Int32Array(2 * numCell * 3);
    for (let cls = 0; cls < 2; cls++) {
      for (let cell = 0; cell < numCell; cell++) {
        const g = [0, 0, 0, 0];
        for (let t = kept.length - 1, rest = cell; t >= 0; t--, rest = Math.floor(rest / 3)) g[kept[t]] = rest % 3;
        for (let genotype = 0; genotype < 3; genotype++) {
          g[dropped] = genotype;
          sources[3 * (cls * numCell + cell) + genotype] = baseOf.get(source)! + cls * sourceCells + cellOf(source, g);
        }
      }
    }
    tables.push({ subset, numCell, base, sources });
    baseOf.set(subset, base);
    base += 2 * numCell;
  }
  return tables;
})();

/** Entries of a batch for `score`: IG adds its marginal tables. */
export function quadBatchEntries(score: EpistasisScore): number {
  if (score !== 'ig') return QUAD_ENTRIES;
  const last = MARGINAL_TABLES[MARGINAL_TABLES.length - 1];
  return last.base + 2 * last.numCell;
}

/** Per-quadruple sums of a batch (reused: finalize scores millions of quadruples). */
export class QuadScoreScratch {
  readonly joint = new Float64Array(QUAD_BATCH_CAPACITY);
  readonly marginal = new Float64Array(QUAD_BATCH_CAPACITY);
  readonly numControls = new Int32Array(QUAD_BATCH_CAPACITY);
  readonly numCases = new Int32Array(QUAD_BATCH_CAPACITY);
  readonly mi = new Float64Array(QUAD_BATCH_CAPACITY);
  readonly triples = new Float64Array(QUAD_BATCH_CAPACITY);
  readonly pairs = new Float64Array(QUAD_BATCH_CAPACITY);
  readonly singles = new Float64Array(QUAD_BATCH_CAPACITY);
}

/**
 * Scores of the batch's `count` quadruples (cells at `cells[e·stride + q]`, stride ≤ QUAD_BATCH_CAPACITY) into
 * `scores[0, count)`: k2Score's, mutualInformation's or interactionInformation's double for each.
 */
export function quadBatchScores(
  score: EpistasisScore, tables: ScoreTables, cells: Int32Array, stride: number, count: number, scratch: QuadScoreScratch,
  scores: Float64Array,
): void {
  if (score === 'k2') {
    k2Batch(tables.logFactorial, cells, stride, count, scores);
    return;
  }
  fullTableMiBatch(tables.nLogN, cells, stride, count, scratch, scores);
  if (score === 'mi') return;
  for (const table of MARGINAL_TABLES) sumSources(cells, stride, count, table);
  // −Σ MI(triples) + Σ MI(pairs) − Σ MI(singles), each sum over its subsets in increasing bit order (quadMobiusTerms).
  const [triples, pairs, singles] = [scratch.triples, scratch.pairs, scratch.singles];
  triples.fill(0, 0, count);
  pairs.fill(0, 0, count);
  singles.fill(0, 0, count);
  for (const size of [3, 2, 1]) {
    const sum = size === 3 ? triples : size === 2 ? pairs : singles;
    // SUBSETS_BY_SIZE and so MARGINAL_TABLES list each size's subsets in increasing order.
    for (const table of MARGINAL_TABLES) {
      if (bitCount(table.subset) !== size) continue;
      marginalMiBatch(tables.nLogN, cells, stride, count, table.base, table.numCell, scratch, scratch.mi);
      for (let q = 0; q < count; q++) sum[q] += scratch.mi[q];
    }
  }
  for (let q = 0; q < count; q++) scores[q] = scores[q] + (-triples[q] + pairs[q] - singles[q]);
}

/** K2 = Σ_c lf[r_c0 + r_c1 + 1] − lf[r_c0] − lf[r_c1], cells in order (k2Score). */
function k2Batch(lf: Float64Array, cells: Int32Array, stride: number, count: number, scores: Float64Array): void {
  scores.fill(0, 0, count);
  for (let c = 0; c < 81; c++) {
    const controls = c * stride, cases = (81 + c) * stride;
    for (let q = 0; q < count; q++) {
      const n0 = cells[controls + q], n1 = cells[cases + q];
      scores[q] += lf[n0 + n1 + 1] - lf[n0] - lf[n1];
    }
  }
}

/** MI of the full table (mutualInformation's operations) into `out`, and each quadruple's controls and cases on the way. */
function fullTableMiBatch(t: Float64Array, cells: Int32Array, stride: number, count: number, scratch: QuadScoreScratch, out: Float64Array): void {
  const { joint, marginal, numControls, numCases } = scratch;
  joint.fill(0, 0, count);
  marginal.fill(0, 0, count);
  numControls.fill(0, 0, count);
  numCases.fill(0, 0, count);
  for (let c = 0; c < 81; c++) {
    const controls = c * stride, cases = (81 + c) * stride;
    for (let q = 0; q < count; q++) {
      const n0 = cells[controls + q], n1 = cells[cases + q];
      joint[q] += t[n0] + t[n1];
      marginal[q] += t[n0 + n1];
      numControls[q] += n0;
      numCases[q] += n1;
    }
  }
  miOfSums(t, count, scratch, out);
}

/** MI of the marginal table of `numCell` cells per class at entry `base` into `out` (its totals: the full table's). */
function marginalMiBatch(
  t: Float64Array, cells: Int32Array, stride: number, count: number, base: number, numCell: number, scratch: QuadScoreScratch,
  out: Float64Array,
): void {
  const { joint, marginal } = scratch;
  joint.fill(0, 0, count);
  marginal.fill(0, 0, count);
  for (let c = 0; c < numCell; c++) {
    const controls = (base + c) * stride, cases = (base + numCell + c) * stride;
    for (let q = 0; q < count; q++) {
      const n0 = cells[controls + q], n1 = cells[cases + q];
      joint[q] += t[n0] + t[n1];
      marginal[q] += t[n0 + n1];
    }
  }
  miOfSums(t, count, scratch, out);
}

/** MI from a table's sums: (Σ n ln n over cells − Σ over genotypes − class terms + N ln N) / (N ln 2). */
function miOfSums(t: Float64Array, count: number, scratch: QuadScoreScratch, out: Float64Array): void {
  const { joint, marginal, numControls, numCases } = scratch;
  for (let q = 0; q < count; q++) {
    const total = numControls[q] + numCases[q];
    out[q] = total === 0 ? 0 : (joint[q] - marginal[q] - t[numControls[q]] - t[numCases[q]] + t[total]) / (total * LN2);
  }
}

/** A marginal table's entries, each the sum of its 3 source entries. */
function sumSources(cells: Int32Array, stride: number, count: number, table: MarginalTable): void {
  const { sources, base, numCell } = table;
  for (let e = 0; e < 2 * numCell; e++) {
    const out = (base + e) * stride;
    const s0 = sources[3 * e] * stride, s1 = sources[3 * e + 1] * stride, s2 = sources[3 * e + 2] * stride;
    for (let q = 0; q < count; q++) cells[out + q] = cells[s0 + q] + cells[s1 + q] + cells[s2 + q];
  }
}
