// 3-way finalize: the products T[uvw] of one j-slice → the eight entries r_abc → values (SPEC §2–3).
import { combine3, sparseValue3 } from '../core/formulas.js';
import { coefficient3 } from './tallyLayout.js';
import type { MetricContext } from './metricContext.js';
import type { VectorBlock } from './vectorBlock.js';

/** Σ c_x c_y of all local pairs of two blocks (dense 3-way gets T[ccm], T[cmc], T[mcc] from these). */
export interface PairCounts {
  readonly data: Uint32Array;
  /** Local rows of the first block are rows; local rows of the second are columns. */
  readonly numCols: number;
}

/** One j-slice of triples: local j of block `jBlock`, rows i of `iBlock`, cols k of `kBlock`. */
export interface TripleSlice {
  readonly iBlock: VectorBlock;
  readonly iFirst: number;
  readonly numI: number;
  readonly jBlock: VectorBlock;
  readonly jLocal: number;
  readonly kBlock: VectorBlock;
  readonly kFirst: number;
  readonly numK: number;
}

/** Dense-only inputs: 2-way counts between the three blocks. */
export interface DensePairCounts {
  readonly ij: PairCounts;
  readonly ik: PairCounts;
  readonly jk: PairCounts;
}

const COEFFICIENTS = new Map<number, Float64Array>();
/** coef[e·8 + t]: weight of T[t] in r_e (see `coefficient3`). */
function coefficients(countedBits: number): Float64Array {
  let table = COEFFICIENTS.get(countedBits);
  if (table === undefined) {
    table = new Float64Array(64);
    for (let e = 0; e < 8; e++) for (let t = 0; t < 8; t++) table[e * 8 + t] = coefficient3(e, t, countedBits);
    COEFFICIENTS.set(countedBits, table);
  }
  return table;
}

/**
 * Values of the slice's triples. `tallies[g]` (numI × numK) is the product T[products[g]];
 * dense runs pass only T[ccc] and the pair counts.
 */
export function finalizeTriples(
  ctx: MetricContext, slice: TripleSlice, products: readonly number[], tallies: readonly Uint32Array[],
  pairCounts: DensePairCounts | null,
): number {
  const C = ctx.constants.countedBits;
  const k = ctx.constants;
  const coef = coefficients(C);
  const sparse = ctx.layout.maskPlane !== null;
  const nf = ctx.numField;
  const recipCrc = (1 / C) * (1 / nf);
  const rsum = (1 / (C * C * C)) * (1 / nf);
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const T = new Float64Array(8);
  const r = new Float64Array(8);
  const j = jBlock.vectorFirst + jLocal;
  const sj1 = jBlock.sums[jLocal];
  const cj = sparse ? jBlock.counts[jLocal] : nf;
  const sj = [C * cj - sj1, sj1];
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  let numTriples = 0;
  // Values of one row of triples, 8 per triple (entry bits a, b, c at 4a + 2b + c).
  const rowValues = new Float64Array(8 * Math.max(0, numKReal));
  for (let ri = 0; ri < numIReal; ri++) {
    const li = slice.iFirst + ri;
    const i = iBlock.vectorFirst + li;
    const si1 = iBlock.sums[li];
    const ci = sparse ? iBlock.counts[li] : nf;
    const si = [C * ci - si1, si1];
    for (let rk = 0; rk < numKReal; rk++) {
      const lk = slice.kFirst + rk;
      const kk = kBlock.vectorFirst + lk;
      const sk1 = kBlock.sums[lk];
      const ck = sparse ? kBlock.counts[lk] : nf;
      const sk = [C * ck - sk1, sk1];
      const t = ri * slice.numK + rk;
      if (sparse) {
        for (let g = 0; g < products.length; g++) T[products[g]] = tallies[g][t];
      } else {
        const pc = pairCounts as DensePairCounts;
        T[7] = tallies[0][t];
        T[6] = pc.ij.data[li * pc.ij.numCols + jLocal];
        T[5] = pc.ik.data[li * pc.ik.numCols + lk];
        T[3] = pc.jk.data[jLocal * pc.jk.numCols + lk];
        T[4] = si1;
        T[2] = sj1;
        T[1] = sk1;
        T[0] = nf;
      }
      let cijk = 0;
      for (let e = 0; e < 8; e++) {
        let sum = 0;
        for (let p = 0; p < 8; p++) sum += coef[e * 8 + p] * T[p];
        r[e] = sum;
        cijk += sum;
      }
      for (let e = 0; e < 8; e++) {
        const a = (e >> 2) as 0 | 1, b = ((e >> 1) & 1) as 0 | 1, c = (e & 1) as 0 | 1;
        const value = sparse
          ? sparseValue3(k, r[e], si[a], sj[b], sk[c], ci, cj, ck, cijk)
          : combine3(k, rsum * r[e], recipCrc * si[a], recipCrc * sj[b], recipCrc * sk[c]);
        rowValues[8 * rk + e] = value;
        if (ctx.verifier !== null) ctx.verifier.check3(i, a, j, b, kk, c, value);
      }
    }
    if (numKReal > 0) {
      ctx.sink.addTripleRow(i, j, kBlock.vectorFirst + slice.kFirst, numKReal, rowValues);
      numTriples += numKReal;
    }
  }
  return numTriples;
}
