// CoMet's 3-way finalize: the products T[uvw] of one j-slice → the eight entries r_abc → values (SPEC §2–3).
//
// Cost per triple is what matters (3-way CPU time is mostly here), so the work is factored:
// - per vector (once per slice): f = rc·s of each entry bit and g = 1 − p·f, with SPEC §3's operations;
// - per (i, j): the tallies that do not depend on k (dense: T[ccm] = Σ c_i c_j, s_i, s_j);
// - per triple: r_abc by inclusion–exclusion with shared partial sums (`entryTallies3`), then per entry
//   ((mult·(rsum·r))·g_lo)·g_mid·g_hi with the g's ordered by f exactly as core/formulas' combine3 does.
// Tallies are integers below 2^53, so any order of their integer sums gives the same doubles; the
// floating-point operations on them are SPEC §3's, in its order.
import type { FormulaConstants } from '../../core/formulas.js';
import type { BlockPairCounts, FinalizeContext, TripleSlice, VectorBlockView } from '../index.js';
import type { CometSettings } from './cometSettings.js';

/**
 * r_abc (index 4a + 2b + c) from the products T[uvw] (index 4u + 2v + w, u = 1 for the count c1,
 * 0 for the mask m) with C counted bits: a factor with entry bit 0 is C·m − c1, so
 * r_abc = Σ_uvw T[uvw] · Π (bit ? u : (u ? −1 : C)) — the expansion of cometTallies.ts's `coefficient3`,
 * written with shared partial sums. Exact: every intermediate is an integer below 2^53.
 */
export function entryTallies3(
  C: number, t0: number, t1: number, t2: number, t3: number, t4: number, t5: number, t6: number, t7: number,
  r: Float64Array,
): void {
  const r110 = C * t6 - t7;
  const r101 = C * t5 - t7;
  const r011 = C * t3 - t7;
  r[7] = t7;
  r[6] = r110;
  r[5] = r101;
  r[3] = r011;
  r[4] = C * (C * t4 - t5) - r110;
  r[2] = C * (C * t2 - t3) - r110;
  r[1] = C * (C * t1 - t3) - r101;
  r[0] = C * (C * (C * t0 - t1 - t2 - t4) + t3 + t5 + t6) - t7;
}

/** Per-vector factors of one entry bit each: f = rc·s_bit (orders the factors) and g = 1 − p·f. */
export interface VectorFactors {
  readonly f0: Float64Array;
  readonly f1: Float64Array;
  readonly g0: Float64Array;
  readonly g1: Float64Array;
}

/**
 * Factors of local vectors [first, first + count) of a block: dense f = ((1/C)·(1/m))·s, sparse
 * f = ((1/C)·(1/c))·s (SPEC §3's rc_t = 1/c_t; a vector with c = 0 gives value 0 and its f is unused).
 */
export function vectorFactors(run: CometSettings, block: VectorBlockView, first: number, count: number): VectorFactors {
  const C = run.constants.countedBits;
  const p = run.constants.param;
  const sparse = run.sparse;
  const nf = run.numField;
  const recipC = 1 / C;
  const recipCrc = recipC * (1 / nf);
  const f0 = new Float64Array(count), f1 = new Float64Array(count), g0 = new Float64Array(count), g1 = new Float64Array(count);
  for (let v = 0; v < count; v++) {
    const s1 = block.sums[first + v];
    const c = sparse ? block.counts[first + v] : nf;
    const rc = sparse ? recipC * (1 / c) : recipCrc;
    f0[v] = rc * (C * c - s1);
    f1[v] = rc * s1;
    g0[v] = 1 - p * f0[v];
    g1[v] = 1 - p * f1[v];
  }
  return { f0, f1, g0, g1 };
}

/** `(((mult·F)·g_lo)·g_mid)·g_hi` with the g's ordered by their f's, by combine3's exchanges (same result). */
function orderedProduct(multF: number, fx: number, gx: number, fy: number, gy: number, fz: number, gz: number): number {
  let fLo = fx, gLo = gx, fMid = fy, gMid = gy, gHi = gz;
  if (fLo > fMid) { const f = fLo; fLo = fMid; fMid = f; const g = gLo; gLo = gMid; gMid = g; }
  if (fMid > fz) { gHi = gMid; gMid = gz; fMid = fz; }
  if (fLo > fMid) { const g = gLo; gLo = gMid; gMid = g; }
  return ((multF * gLo) * gMid) * gHi;
}

/**
 * Values of the slice's triples. `tallies[g]` (numI × numK) is the product T[products[g]];
 * dense runs pass only T[ccc] and the pair counts.
 */
export function finalizeCometTriples(
  run: CometSettings, ctx: FinalizeContext, slice: TripleSlice, products: readonly number[], tallies: readonly Uint32Array[],
  pairCounts: BlockPairCounts | null,
): number {
  const k: FormulaConstants = run.constants;
  const C = k.countedBits;
  const mult = k.multiplier;
  const sparse = run.sparse;
  const nf = run.numField;
  const denseRsum = (1 / (C * C * C)) * (1 / nf);
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const j = jBlock.vectorFirst + jLocal;
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  if (numIReal <= 0 || numKReal <= 0) return 0;
  const fi = vectorFactors(run, iBlock, slice.iFirst, numIReal);
  const fj = vectorFactors(run, jBlock, jLocal, 1);
  const fk = vectorFactors(run, kBlock, slice.kFirst, numKReal);
  const fj0 = fj.f0[0], fj1 = fj.f1[0], gj0 = fj.g0[0], gj1 = fj.g1[0];
  const sj1 = jBlock.sums[jLocal];
  const cj = sparse ? jBlock.counts[jLocal] : nf;
  // T[uvw] of products g: tallies[byProduct[t]] (sparse computes all eight).
  const byProduct = new Int32Array(8).fill(-1);
  products.forEach((t, g) => { byProduct[t] = g; });
  const [T0, T1, T2, T3, T4, T5, T6, T7] = [0, 1, 2, 3, 4, 5, 6, 7].map((t) => tallies[byProduct[t]]);
  const pc = pairCounts;
  if (!sparse && pc === null) throw new Error('dense 3-way finalize needs the pair counts');
  const r = new Float64Array(8);
  const entryValues = new Float64Array(8);
  let numTriples = 0;
  // Values of one row of triples, 8 per triple (entry bits a, b, c at 4a + 2b + c).
  const rowValues = new Float64Array(8 * numKReal);
  for (let ri = 0; ri < numIReal; ri++) {
    const li = slice.iFirst + ri;
    const i = iBlock.vectorFirst + li;
    const fi0 = fi.f0[ri], fi1 = fi.f1[ri], gi0 = fi.g0[ri], gi1 = fi.g1[ri];
    const ci = sparse ? iBlock.counts[li] : nf;
    // Dense: T[ccm] = Σ c_i c_j, T[cmm] = s_i, T[mcm] = s_j do not depend on k.
    const tij = pc === null ? 0 : pc.ij.data[li * pc.ij.numCols + jLocal];
    const si1 = iBlock.sums[li];
    const rowBase = ri * slice.numK;
    for (let rk = 0; rk < numKReal; rk++) {
      const lk = slice.kFirst + rk;
      const t = rowBase + rk;
      let rsum: number;
      let zero = false;
      if (sparse) {
        const t0 = T0[t];
        entryTallies3(C, t0, T1[t], T2[t], T3[t], T4[t], T5[t], T6[t], T7[t], r);
        // cijk = Σ_abc r_abc = C³·T[mmm] (c_0 + c_1 = C·m per field), exactly.
        const cijk = C * C * C * t0;
        zero = ci === 0 || cj === 0 || kBlock.counts[lk] === 0 || cijk === 0;
        rsum = 1 / cijk;
      } else {
        const dense = pc as BlockPairCounts;
        entryTallies3(C, nf, kBlock.sums[lk], sj1, dense.jk.data[jLocal * dense.jk.numCols + lk], si1,
          dense.ik.data[li * dense.ik.numCols + lk], tij, T7[t], r);
        rsum = denseRsum;
      }
      const at = 8 * rk;
      if (zero) {
        rowValues.fill(0, at, at + 8);
      } else {
        const fk0 = fk.f0[rk], fk1 = fk.f1[rk], gk0 = fk.g0[rk], gk1 = fk.g1[rk];
        rowValues[at] = orderedProduct(mult * (rsum * r[0]), fi0, gi0, fj0, gj0, fk0, gk0);
        rowValues[at + 1] = orderedProduct(mult * (rsum * r[1]), fi0, gi0, fj0, gj0, fk1, gk1);
        rowValues[at + 2] = orderedProduct(mult * (rsum * r[2]), fi0, gi0, fj1, gj1, fk0, gk0);
        rowValues[at + 3] = orderedProduct(mult * (rsum * r[3]), fi0, gi0, fj1, gj1, fk1, gk1);
        rowValues[at + 4] = orderedProduct(mult * (rsum * r[4]), fi1, gi1, fj0, gj0, fk0, gk0);
        rowValues[at + 5] = orderedProduct(mult * (rsum * r[5]), fi1, gi1, fj0, gj0, fk1, gk1);
        rowValues[at + 6] = orderedProduct(mult * (rsum * r[6]), fi1, gi1, fj1, gj1, fk0, gk0);
        rowValues[at + 7] = orderedProduct(mult * (rsum * r[7]), fi1, gi1, fj1, gj1, fk1, gk1);
      }
      if (ctx.verifier !== null) {
        const kk = kBlock.vectorFirst + lk;
        entryValues.set(rowValues.subarray(at, at + 8));
        for (let e = 0; e < 8; e++) ctx.verifier.check3(i, (e >> 2) as 0 | 1, j, ((e >> 1) & 1) as 0 | 1, kk, (e & 1) as 0 | 1, entryValues[e]);
      }
    }
    ctx.sink.addTripleRow(i, j, kBlock.vectorFirst + slice.kFirst, numKReal, rowValues);
    numTriples += numKReal;
  }
  return numTriples;
}
