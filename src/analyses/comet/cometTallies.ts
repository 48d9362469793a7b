// CoMet's planes and tallies: which bit planes represent a vector for CCC and DUO, and which plane products make
// each tally.
//
// c1 (the counted 1-bits of a field) is a sum of 0/1 planes: CCC c1 = H + L, DUO c1 = D. Sparse mode
// adds the presence mask M. A tally Σ_f Π_t (c1 or m)_t is then a sum of popcounts of plane ANDs.
import type { TermGroup } from '../../mgemm/index.js';
import type { PlaneLayout, TriplePlan } from '../index.js';
import { planeBitsOfCodes } from '../index.js';

/** CoMet's 2-bit metrics: CCC counts both bits of a field, DUO the low bit. */
export type CometMetric = 'ccc' | 'duo';

/** The planes of a CoMet metric and mode (see file header). */
export function cometPlaneLayout(metric: CometMetric, sparse: boolean): PlaneLayout {
  const table = (f: (b1: number, b0: number, missing: boolean) => number[]): number[] => planeBitsOfCodes(sparse, f);
  if (metric === 'ccc') {
    // Dense: H = b1, L = b0 (so `10` counts 1 like `01`). Sparse: a present field has b1 ⇒ b0.
    return sparse
      ? { numPlanes: 3, countPlanes: [0, 1], maskPlane: 2, bitsOfCode: table((b1, b0, m) => (m ? [0, 0, 0] : [b1 & b0, b0, 1])) }
      : { numPlanes: 2, countPlanes: [0, 1], maskPlane: null, bitsOfCode: table((b1, b0) => [b1, b0]) };
  }
  // DUO counts the low bit; without sparse mode `10` counts like `01`.
  return sparse
    ? { numPlanes: 2, countPlanes: [0], maskPlane: 1, bitsOfCode: table((_b1, b0, m) => (m ? [0, 0] : [b0, 1])) }
    : { numPlanes: 1, countPlanes: [0], maskPlane: null, bitsOfCode: table((b1, b0) => [b1 | b0]) };
}

/** Factor kinds of a tally product: the counted bits c1 or the presence mask m. */
type Factor = 'c' | 'm';

function planesOf(layout: PlaneLayout, factor: Factor): readonly number[] {
  if (factor === 'c') return layout.countPlanes;
  if (layout.maskPlane === null) throw new Error('dense layouts have no mask plane');
  return [layout.maskPlane];
}

/**
 * 2-way term groups. Dense: [Σ c_i c_j]. Sparse: [Σ c_i c_j, Σ c_i m_j, Σ m_i c_j, Σ m_i m_j].
 */
export function termGroups2(layout: PlaneLayout): TermGroup[] {
  const group = (u: Factor, v: Factor): TermGroup =>
    planesOf(layout, u).flatMap((p) => planesOf(layout, v).map((q) => [p, q] as const));
  return layout.maskPlane === null
    ? [group('c', 'c')]
    : [group('c', 'c'), group('c', 'm'), group('m', 'c'), group('m', 'm')];
}

/** The 3-way products T[uvw] = Σ_f u_i v_j w_k, indexed by bits (u=c → 1): index 7 = ccc, 0 = mmm. */
export const FACTORS3: readonly (readonly [Factor, Factor, Factor])[] = [0, 1, 2, 3, 4, 5, 6, 7].map((t) => [
  (t & 4 ? 'c' : 'm') as Factor, (t & 2 ? 'c' : 'm') as Factor, (t & 1 ? 'c' : 'm') as Factor,
]);

/**
 * 3-way operands: the A operand of mGEMM3 holds, for a fixed j, the plane pairs (p of i) AND (q of j);
 * the B operand is k's planes. Dense layouts need only T[ccc] (the rest come from 2-way tallies and sums);
 * sparse layouts need all eight T[uvw].
 */
export interface Tally3Plan extends TriplePlan {
  /** Term groups over (pair index, k plane); `products[g]` says which T[uvw] group g computes. */
  readonly termGroups: TermGroup[];
  readonly products: readonly number[];
}

export function tally3Plan(layout: PlaneLayout): Tally3Plan {
  const products = layout.maskPlane === null ? [7] : [7, 6, 5, 4, 3, 2, 1, 0];
  const planePairs: (readonly [number, number])[] = [];
  const pairIndex = (p: number, q: number): number => {
    let idx = planePairs.findIndex(([a, b]) => a === p && b === q);
    if (idx < 0) idx = planePairs.push([p, q]) - 1;
    return idx;
  };
  const termGroups = products.map((t) => {
    const [u, v, w] = FACTORS3[t];
    return planesOf(layout, u).flatMap((p) => planesOf(layout, v).flatMap((q) =>
      planesOf(layout, w).map((r) => [pairIndex(p, q), r] as const)));
  });
  // Dense layouts take T[ccm], T[cmc], T[mcc] from the 2-way counts Σ c_x c_y between the three blocks.
  const pairCountGroup = layout.maskPlane === null ? termGroups2(layout)[0] : null;
  return { planePairs, termGroups, products, pairCountGroup };
}

/**
 * Coefficient of T[uvw] in r_abc: a factor with entry bit 1 is c1 (needs u = c); with entry bit 0 it
 * is C·m − c1, contributing C for u = m and −1 for u = c.
 */
export function coefficient3(entry: number, product: number, countedBits: number): number {
  let coef = 1;
  for (let t = 2; t >= 0; t--) {
    const bit = (entry >> t) & 1;
    const isCount = (product >> t) & 1;
    coef *= bit ? isCount : (isCount ? -1 : countedBits);
  }
  return coef;
}
