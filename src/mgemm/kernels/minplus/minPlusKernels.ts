// The min-plus microkernels and their blocked loops (minPlusContract.ts): 2-way Σ_f min(a, b) and 3-way
// Σ_f ((min(x,y) + min(x,z)) + min(y,z)) − min(x,y,z), each sum added in field order in the run's precision.
//
// BLIS-style: fields are cut into KC blocks (sums go back to the output between blocks: storing and reloading a
// double, or a float32 in a Float32Array, is exact, so the order of additions per sum is still field order), rows
// and columns into MR × NR register tiles whose accumulators run over a KC block; edge tiles go one sum at a time.
// Double and single have their own microkernels so that neither carries the other's rounding in its hot loop.
import type { PairMinOrder, RealValues } from '../../minPlusContract.js';

/** Fields per block: 4 rows + 4 columns of 512 doubles stay in L1 (32 KiB) while a tile runs over them. */
export const KC = 512;
export const MR = 4;
export const NR = 4;

/** One 2-way tile job: rows [rowFirst, rowEnd) of a against cols [0, bCount) of b, into out (row-major, bCount). */
export interface MinPlus2Tile {
  readonly a: RealValues;
  readonly aFirst: number;
  readonly b: RealValues;
  readonly bFirst: number;
  readonly bCount: number;
  readonly numField: number;
  /** Local output rows [rowFirst, rowEnd). */
  readonly rowFirst: number;
  readonly rowEnd: number;
  /** Only c > r needed: tiles wholly at or below the diagonal are skipped (their sums are unspecified). */
  readonly strictUpper: boolean;
  readonly out: Float64Array | Float32Array;
}

/** One 3-way tile job: y row yRow; x rows [xFirst + rowFirst, xFirst + rowEnd) against z rows [zFirst, +zCount). */
export interface MinPlus3Tile {
  readonly x: RealValues;
  readonly xFirst: number;
  readonly y: RealValues;
  readonly yRow: number;
  readonly z: RealValues;
  readonly zFirst: number;
  readonly zCount: number;
  readonly numField: number;
  readonly rowFirst: number;
  readonly rowEnd: number;
  /** Which pairwise mins are SPEC §8's ab, ac, bc (the operands' global order, minPlusContract.ts). */
  readonly order: PairMinOrder;
  readonly out: Float64Array | Float32Array;
}

/** Rounding of a precision: float32 rounding, or none (double). */
type Round = (x: number) => number;
const roundOf = (out: Float64Array | Float32Array): Round => (out instanceof Float32Array ? Math.fround : (x: number) => x);

/** The reference 2-way kernel: each sum from its definition, field by field. The oracle of the blocked one. */
export function minPlus2Reference(t: MinPlus2Tile): void {
  const round = roundOf(t.out);
  const { values: av, rowStride: as } = t.a;
  const { values: bv, rowStride: bs } = t.b;
  for (let r = t.rowFirst; r < t.rowEnd; r++) {
    for (let c = 0; c < t.bCount; c++) {
      let s = 0;
      for (let f = 0; f < t.numField; f++) s = round(s + Math.min(av[(t.aFirst + r) * as + f], bv[(t.bFirst + c) * bs + f]));
      t.out[r * t.bCount + c] = s;
    }
  }
}

/** The reference 3-way kernel. */
export function minPlus3Reference(t: MinPlus3Tile): void {
  const round = roundOf(t.out);
  const { x, y, z } = t;
  for (let r = t.rowFirst; r < t.rowEnd; r++) {
    for (let c = 0; c < t.zCount; c++) {
      let s = 0;
      for (let f = 0; f < t.numField; f++) {
        const xv = x.values[(t.xFirst + r) * x.rowStride + f];
        const yv = y.values[t.yRow * y.rowStride + f];
        const zv = z.values[(t.zFirst + c) * z.rowStride + f];
        const mins = [Math.min(xv, yv), Math.min(xv, zv), Math.min(yv, zv)];
        const [ab, ac, bc] = t.order.map((m) => mins[m]);
        s = round(s + round(round(round(ab + ac) + bc) - Math.min(xv, yv, zv)));
      }
      t.out[r * t.zCount + c] = s;
    }
  }
}

/** The blocked 2-way kernel: KC field blocks, MR × NR register tiles, edges one sum at a time. */
export function minPlus2Blocked(t: MinPlus2Tile): void {
  const { out, bCount, numField } = t;
  const single = out instanceof Float32Array;
  const round = roundOf(out);
  out.fill(0, t.rowFirst * bCount, t.rowEnd * bCount);
  const { values: av, rowStride: as } = t.a;
  const { values: bv, rowStride: bs } = t.b;
  for (let f0 = 0; f0 < numField; f0 += KC) {
    const f1 = Math.min(numField, f0 + KC);
    for (let r = t.rowFirst; r < t.rowEnd; r += MR) {
      const rows = Math.min(MR, t.rowEnd - r);
      for (let c = 0; c < bCount; c += NR) {
        if (t.strictUpper && c + NR - 1 <= r) continue;
        const cols = Math.min(NR, bCount - c);
        const aBase = (t.aFirst + r) * as;
        const bBase = (t.bFirst + c) * bs;
        if (rows === MR && cols === NR) {
          if (single) tile2Single(av, aBase, as, bv, bBase, bs, f0, f1, out as Float32Array, r * bCount + c, bCount);
          else tile2Double(av, aBase, as, bv, bBase, bs, f0, f1, out as Float64Array, r * bCount + c, bCount);
          continue;
        }
        for (let i = 0; i < rows; i++) {
          for (let j = 0; j < cols; j++) {
            const o = (r + i) * bCount + c + j;
            let s = out[o];
            for (let f = f0; f < f1; f++) s = round(s + Math.min(av[aBase + i * as + f], bv[bBase + j * bs + f]));
            out[o] = s;
          }
        }
      }
    }
  }
}

function tile2Double(
  av: Float64Array | Float32Array, aBase: number, as: number, bv: Float64Array | Float32Array, bBase: number, bs: number,
  f0: number, f1: number, out: Float64Array, o: number, ld: number,
): void {
  let s00 = out[o], s01 = out[o + 1], s02 = out[o + 2], s03 = out[o + 3];
  let s10 = out[o + ld], s11 = out[o + ld + 1], s12 = out[o + ld + 2], s13 = out[o + ld + 3];
  let s20 = out[o + 2 * ld], s21 = out[o + 2 * ld + 1], s22 = out[o + 2 * ld + 2], s23 = out[o + 2 * ld + 3];
  let s30 = out[o + 3 * ld], s31 = out[o + 3 * ld + 1], s32 = out[o + 3 * ld + 2], s33 = out[o + 3 * ld + 3];
  for (let f = f0; f < f1; f++) {
    const a0 = av[aBase + f], a1 = av[aBase + as + f], a2 = av[aBase + 2 * as + f], a3 = av[aBase + 3 * as + f];
    const b0 = bv[bBase + f], b1 = bv[bBase + bs + f], b2 = bv[bBase + 2 * bs + f], b3 = bv[bBase + 3 * bs + f];
    s00 += Math.min(a0, b0); s01 += Math.min(a0, b1); s02 += Math.min(a0, b2); s03 += Math.min(a0, b3);
    s10 += Math.min(a1, b0); s11 += Math.min(a1, b1); s12 += Math.min(a1, b2); s13 += Math.min(a1, b3);
    s20 += Math.min(a2, b0); s21 += Math.min(a2, b1); s22 += Math.min(a2, b2); s23 += Math.min(a2, b3);
    s30 += Math.min(a3, b0); s31 += Math.min(a3, b1); s32 += Math.min(a3, b2); s33 += Math.min(a3, b3);
  }
  out[o] = s00; out[o + 1] = s01; out[o + 2] = s02; out[o + 3] = s03;
  out[o + ld] = s10; out[o + ld + 1] = s11; out[o + ld + 2] = s12; out[o + ld + 3] = s13;
  out[o + 2 * ld] = s20; out[o + 2 * ld + 1] = s21; out[o + 2 * ld + 2] = s22; out[o + 2 * ld + 3] = s23;
  out[o + 3 * ld] = s30; out[o + 3 * ld + 1] = s31; out[o + 3 * ld + 2] = s32; out[o + 3 * ld + 3] = s33;
}

function tile2Single(
  av: Float64Array | Float32Array, aBase: number, as: number, bv: Float64Array | Float32Array, bBase: number, bs: number,
  f0: number, f1: number, out: Float32Array, o: number, ld: number,
): void {
  const r = Math.fround;
  let s00 = out[o], s01 = out[o + 1], s02 = out[o + 2], s03 = out[o + 3];
  let s10 = out[o + ld], s11 = out[o + ld + 1], s12 = out[o + ld + 2], s13 = out[o + ld + 3];
  let s20 = out[o + 2 * ld], s21 = out[o + 2 * ld + 1], s22 = out[o + 2 * ld + 2], s23 = out[o + 2 * ld + 3];
  let s30 = out[o + 3 * ld], s31 = out[o + 3 * ld + 1], s32 = out[o + 3 * ld + 2], s33 = out[o + 3 * ld + 3];
  for (let f = f0; f < f1; f++) {
    const a0 = av[aBase + f], a1 = av[aBase + as + f], a2 = av[aBase + 2 * as + f], a3 = av[aBase + 3 * as + f];
    const b0 = bv[bBase + f], b1 = bv[bBase + bs + f], b2 = bv[bBase + 2 * bs + f], b3 = bv[bBase + 3 * bs + f];
    s00 = r(s00 + Math.min(a0, b0)); s01 = r(s01 + Math.min(a0, b1)); s02 = r(s02 + Math.min(a0, b2)); s03 = r(s03 + Math.min(a0, b3));
    s10 = r(s10 + Math.min(a1, b0)); s11 = r(s11 + Math.min(a1, b1)); s12 = r(s12 + Math.min(a1, b2)); s13 = r(s13 + Math.min(a1, b3));
    s20 = r(s20 + Math.min(a2, b0)); s21 = r(s21 + Math.min(a2, b1)); s22 = r(s22 + Math.min(a2, b2)); s23 = r(s23 + Math.min(a2, b3));
    s30 = r(s30 + Math.min(a3, b0)); s31 = r(s31 + Math.min(a3, b1)); s32 = r(s32 + Math.min(a3, b2)); s33 = r(s33 + Math.min(a3, b3));
  }
  out[o] = s00; out[o + 1] = s01; out[o + 2] = s02; out[o + 3] = s03;
  out[o + ld] = s10; out[o + ld + 1] = s11; out[o + ld + 2] = s12; out[o + ld + 3] = s13;
  out[o + 2 * ld] = s20; out[o + 2 * ld + 1] = s21; out[o + 2 * ld + 2] = s22; out[o + 2 * ld + 3] = s23;
  out[o + 3 * ld] = s30; out[o + 3 * ld + 1] = s31; out[o + 3 * ld + 2] = s32; out[o + 3 * ld + 3] = s33;
}

/**
 * The blocked 3-way kernel: per KC block and row, min(x_i, y_j) once into `pairScratch` (KC values), then each sum
 * over the block. The term's operations keep SPEC §8's order, its mins taken in the operands' global order.
 */
export function minPlus3Blocked(t: MinPlus3Tile, pairScratch: Float64Array): void {
  const { out, zCount, numField, x, y, z } = t;
  const round = roundOf(out);
  out.fill(0, t.rowFirst * zCount, t.rowEnd * zCount);
  const yBase = t.yRow * y.rowStride;
  const [o0, o1, o2] = t.order;
  const mins = new Float64Array(3);
  for (let f0 = 0; f0 < numField; f0 += KC) {
    const f1 = Math.min(numField, f0 + KC);
    for (let r = t.rowFirst; r < t.rowEnd; r++) {
      const xBase = (t.xFirst + r) * x.rowStride;
      for (let f = f0; f < f1; f++) pairScratch[f - f0] = Math.min(x.values[xBase + f], y.values[yBase + f]);
      for (let c = 0; c < zCount; c++) {
        const o = r * zCount + c;
        const zBase = (t.zFirst + c) * z.rowStride;
        let s = out[o];
        for (let f = f0; f < f1; f++) {
          const zv = z.values[zBase + f];
          const xy = pairScratch[f - f0];
          mins[0] = xy;
          mins[1] = Math.min(x.values[xBase + f], zv);
          mins[2] = Math.min(y.values[yBase + f], zv);
          s = round(s + round(round(round(mins[o0] + mins[o1]) + mins[o2]) - Math.min(xy, zv)));
        }
        out[o] = s;
      }
    }
  }
}
