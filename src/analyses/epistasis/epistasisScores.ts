// Scores of a case-control contingency table (3^k genotype cells × 2 classes): K2 (seed 000 eq. 1, smaller is
// stronger), mutual information MI(X; Y) in bits and the interaction information IG (Möbius form over the tuple's
// sub-tables, seed 002). Every score is a fixed sequence of double operations on integer counts and two tables built
// by repeated addition, so it is the same bits on every backend, decomposition and thread count.
import type { EpistasisScore } from '../../core/types.js';

/** Tuple sizes of the epistasis analysis: pairs, triples, quadruples. */
export type EpistasisOrder = 2 | 3 | 4;

/** A table's cells: `controls[c]`, `cases[c]` for the 3^k genotype cells c (first SNP slowest). */
export interface CaseControlCells {
  readonly controls: ArrayLike<number>;
  readonly cases: ArrayLike<number>;
}

/**
 * `logFactorial[n] = ln(n!)` summed as ln 1 + ln 2 + … in order (no lgamma: its accuracy differs between libms) and
 * `nLogN[n] = n·ln n`, for n up to `maxCount`.
 */
export class ScoreTables {
  readonly logFactorial: Float64Array;
  readonly nLogN: Float64Array;

  constructor(readonly maxCount: number) {
    this.logFactorial = new Float64Array(maxCount + 2);
    this.nLogN = new Float64Array(maxCount + 1);
    for (let n = 2; n <= maxCount + 1; n++) this.logFactorial[n] = this.logFactorial[n - 1] + Math.log(n);
    for (let n = 2; n <= maxCount; n++) this.nLogN[n] = n * Math.log(n);
  }
}

/** K2 = Σ_c [ln((r_c + 1)!) − ln(r_c0!) − ln(r_c1!)], r_c = r_c0 + r_c1; smaller is stronger. */
export function k2Score(tables: ScoreTables, cells: CaseControlCells, numCell: number): number {
  const lf = tables.logFactorial;
  let sum = 0;
  for (let c = 0; c < numCell; c++) {
    const controls = cells.controls[c], cases = cells.cases[c];
    sum += lf[controls + cases + 1] - lf[controls] - lf[cases];
  }
  return sum;
}

/** ln 2, the divisor that makes MI bits (shared with the batch scorers, so that they divide by the same double). */
export const LN2 = Math.log(2);

/** MI(X; Y) in bits = H(X) + H(Y) − H(X, Y) over the cells; 0 for an empty table. */
export function mutualInformation(tables: ScoreTables, cells: CaseControlCells, numCell: number): number {
  const t = tables.nLogN;
  let joint = 0, marginal = 0, numControls = 0, numCases = 0;
  for (let c = 0; c < numCell; c++) {
    const controls = cells.controls[c], cases = cells.cases[c];
    joint += t[controls] + t[cases];
    marginal += t[controls + cases];
    numControls += controls;
    numCases += cases;
  }
  const total = numControls + numCases;
  if (total === 0) return 0;
  // N·MI·ln 2 = Σ n_xy ln n_xy − Σ n_x ln n_x − Σ n_y ln n_y + N ln N.
  return (joint - marginal - t[numControls] - t[numCases] + t[total]) / (total * LN2);
}

/** Scratch for marginal tables of one tuple (reused: finalize scores millions of tuples). */
export class MarginalScratch {
  // A marginal keeps at most 3 SNPs (of a quadruple): 27 cells.
  readonly controls = new Float64Array(27);
  readonly cases = new Float64Array(27);
}

/**
 * MI of the marginal table over the SNPs of `keep` (bit t: SNP t of the tuple, SNP 0 slowest in the cells), summed from
 * `cells` of an `order`-way tuple, into `scratch`.
 */
function marginalMutualInformation(
  tables: ScoreTables, cells: CaseControlCells, order: EpistasisOrder, keep: number, scratch: MarginalScratch,
): number {
  let numKept = 0;
  for (let t = 0; t < order; t++) numKept += (keep >> t) & 1;
  const numMarginal = 3 ** numKept;
  scratch.controls.fill(0, 0, numMarginal);
  scratch.cases.fill(0, 0, numMarginal);
  const numCell = 3 ** order;
  for (let c = 0; c < numCell; c++) {
    let m = 0;
    for (let t = 0, rest = c, place = numCell / 3; t < order; t++, place /= 3) {
      const genotype = Math.floor(rest / place);
      rest -= genotype * place;
      if ((keep >> t) & 1) m = 3 * m + genotype;
    }
    scratch.controls[m] += cells.controls[c];
    scratch.cases[m] += cells.cases[c];
  }
  return mutualInformation(tables, scratch, numMarginal);
}

/**
 * Interaction information (larger is stronger): 2-way MI(AB) − MI(A) − MI(B); 3-way MI(ABC) − MI(AB) − MI(AC) −
 * MI(BC) + MI(A) + MI(B) + MI(C), each MI of the tuple's table marginalized (so over the same samples).
 */
export function interactionInformation(tables: ScoreTables, cells: CaseControlCells, order: EpistasisOrder, scratch: MarginalScratch): number {
  const full = mutualInformation(tables, cells, 3 ** order);
  if (order === 4) return full + quadMobiusTerms(tables, cells, scratch);
  if (order === 2) {
    return full - marginalMutualInformation(tables, cells, 2, 0b01, scratch) - marginalMutualInformation(tables, cells, 2, 0b10, scratch);
  }
  const pairs = marginalMutualInformation(tables, cells, 3, 0b011, scratch) + marginalMutualInformation(tables, cells, 3, 0b101, scratch) +
    marginalMutualInformation(tables, cells, 3, 0b110, scratch);
  const singles = marginalMutualInformation(tables, cells, 3, 0b001, scratch) + marginalMutualInformation(tables, cells, 3, 0b010, scratch) +
    marginalMutualInformation(tables, cells, 3, 0b100, scratch);
  return full - pairs + singles;
}

/** Subsets of a quadruple's SNPs by size (bit t: SNP t), in the order their MI terms are added. */
const QUAD_SUBSETS_BY_SIZE: readonly (readonly number[])[] = [1, 2, 3].map((size) =>
  Array.from({ length: 15 }, (_, s) => s + 1).filter((subset) => popcount4(subset) === size));

function popcount4(subset: number): number {
  return (subset & 1) + ((subset >> 1) & 1) + ((subset >> 2) & 1) + ((subset >> 3) & 1);
}

/**
 * The Möbius terms of a quadruple's interaction information below its full MI: Σ_{T ⊊ S, T ≠ ∅} (−1)^{|S|−|T|} MI(T)
 * = −Σ MI(triples) + Σ MI(pairs) − Σ MI(singles), each sum added over its subsets in increasing bit order.
 */
function quadMobiusTerms(tables: ScoreTables, cells: CaseControlCells, scratch: MarginalScratch): number {
  const sumOf = (subsets: readonly number[]): number => {
    let sum = 0;
    for (const subset of subsets) sum += marginalMutualInformation(tables, cells, 4, subset, scratch);
    return sum;
  };
  const [singles, pairs, triples] = QUAD_SUBSETS_BY_SIZE.map(sumOf);
  return -triples + pairs - singles;
}

/** The score `score` of a tuple's table. */
export function epistasisScore(
  score: EpistasisScore, tables: ScoreTables, cells: CaseControlCells, order: EpistasisOrder, scratch: MarginalScratch,
): number {
  if (score === 'k2') return k2Score(tables, cells, 3 ** order);
  if (score === 'mi') return mutualInformation(tables, cells, 3 ** order);
  return interactionInformation(tables, cells, order, scratch);
}

/** Which scores are stronger: K2 smaller, MI and IG larger (defined with the scores' names, which the CLI reads alone). */
export { strongerScores } from '../../core/types.js';

/**
 * The engine's value of a score: a map into [0, 16) (the range its checksum and top-N records take) under which a
 * stronger score never has a smaller value, so that the engine's top-N keeps the larger values for every score: a
 * float32 value larger than another belongs to a stronger score. K2 ≤ ln((N + 3^k)!) (ln n! is superadditive), so
 * 15 − K2·15 / ln((numField + 27)!) is in [0, 15]; MI ∈ [0, 1] is kept (clamped at 0 against rounding); IG ∈ [−3, 4]
 * is shifted by 4. The exact ranking is then made from the double scores of the candidates (the epistasis command). 4-way:
 * K2's table reaches numField + 81 (k2TableSlack); IG is only bounded by [−8, 7] — a value clamped here ties, and
 * the search's exactness check then asks the engine for more candidates.
 */
export function engineValueOf(score: EpistasisScore, value: number, k2Scale: number): number {
  const mapped = score === 'k2' ? 15 - value * k2Scale : score === 'mi' ? value : value + 4;
  return Math.min(15.5, Math.max(0, mapped));
}

/** Cells past the samples of the K2 table of an `order`-way run: ln((N + slack)!) bounds K2 (27 for 2- and 3-way). */
export function k2TableSlack(order: EpistasisOrder): number {
  return order === 4 ? 81 : 27;
}

/** The K2 scale of engineValueOf for a run of `numField` samples. */
export function k2ScaleOf(tables: ScoreTables): number {
  return 15 / tables.logFactorial[tables.maxCount + 1];
}

/**
 * The score of a table laid out as one array, controls' cells at [0, numCell) and cases' at [numCell, 2·numCell): the
 * same operations as k2Score / mutualInformation in the same order (finalize's hot path, without views).
 */
export function scoreOfEntries(
  score: EpistasisScore, tables: ScoreTables, entries: Float64Array, order: EpistasisOrder, scratch: MarginalScratch,
): number {
  const numCell = order === 2 ? 9 : order === 3 ? 27 : 81;
  if (score === 'k2') {
    const lf = tables.logFactorial;
    let sum = 0;
    for (let c = 0; c < numCell; c++) {
      const controls = entries[c], cases = entries[numCell + c];
      sum += lf[controls + cases + 1] - lf[controls] - lf[cases];
    }
    return sum;
  }
  const cells = { controls: entries.subarray(0, numCell), cases: entries.subarray(numCell, 2 * numCell) };
  return score === 'mi' ? mutualInformation(tables, cells, numCell) : interactionInformation(tables, cells, order, scratch);
}
