// The 81 genotype cells per class of a batch of quadruples (i, j, k, l) of one tile row, from mGEMM4's tallies, as a
// structure of arrays: entry e (81·cls + 27a + 9b + 3c + d) of the batch's q-th quadruple at `cells[e·stride + q]`.
//
// Why a structure of arrays: a quadruple reads 72–162 tally arrays at one index each; a loop over the batch per
// tally array (or per 3 × 3 slab of them) keeps each array's base in a register and walks it linearly, where a
// loop per quadruple would load 72–162 array objects for every quadruple. The cells are integers below 2^31:
// inclusion–exclusion (P − g0 − g1 becomes g = 2) is exact in any order, so this computes it slab by slab.
import type { QuadTileView } from '../index.js';

/** Entries of a quadruple's table: 81 cells per class, controls then cases. */
export const QUAD_ENTRIES = 162;

/** Where a batch's cells go and which quadruples it holds: columns [colFirst, colFirst + count) of tile row `row`. */
export interface QuadBatch {
  readonly cells: Int32Array;
  /** The batch capacity: entry e of quadruple q is at e·stride + q. */
  readonly stride: number;
  readonly row: number;
  readonly colFirst: number;
  readonly count: number;
}

/**
 * Turns the 3 × 3 slab of entries (u, v) ∈ {g0, g1, P}² at `base + u·strideU + v·strideV` of each quadruple of the
 * batch into genotype cells, in place: P along v, then along u, becomes g = 2.
 */
function genotypeSlabInPlace(cells: Int32Array, stride: number, count: number, base: number, strideU: number, strideV: number): void {
  const o00 = base * stride, o01 = (base + strideV) * stride, o02 = (base + 2 * strideV) * stride;
  const o10 = (base + strideU) * stride, o11 = o10 + strideV * stride, o12 = o10 + 2 * strideV * stride;
  const o20 = (base + 2 * strideU) * stride, o21 = o20 + strideV * stride, o22 = o20 + 2 * strideV * stride;
  for (let q = 0; q < count; q++) {
    const e00 = cells[o00 + q], e01 = cells[o01 + q], e10 = cells[o10 + q], e11 = cells[o11 + q];
    const eP0 = cells[o20 + q], eP1 = cells[o21 + q];
    const e02 = cells[o02 + q] - e00 - e01;
    const e12 = cells[o12 + q] - e10 - e11;
    cells[o02 + q] = e02;
    cells[o12 + q] = e12;
    cells[o20 + q] = eP0 - e00 - e10;
    cells[o21 + q] = eP1 - e01 - e11;
    // (P, P): minus (P, g0), (P, g1) as they come, then minus (g0, 2), (g1, 2).
    cells[o22 + q] = cells[o22 + q] - eP0 - eP1 - e02 - e12;
  }
}

/**
 * Every product over {g0, g1, P}^4 from the GEMM (missing calls): group 81·cls + 27x + 9y + 3z + w is entry alike.
 * The (x, y) axes first, straight from the tallies, then (z, w) in place.
 */
export function sparseQuadCells(batch: QuadBatch, tile: QuadTileView, tallies: readonly Uint32Array[]): void {
  const { cells, stride, count } = batch;
  sparseGenotypeRowCells(batch, tile, tallies);
  for (let cls = 0; cls < 2; cls++) for (let ab = 0; ab < 9; ab++) genotypeSlabInPlace(cells, stride, count, 81 * cls + 9 * ab, 3, 1);
}

/**
 * K2 of a sparse batch into `scores[0, count)`: sparseQuadCells's (z, w) step made (a, b) at a time for both classes
 * and its 9 cells' terms added at once — cells 9(3a + b) … in order, so k2Score's sum.
 */
export function sparseQuadK2(batch: QuadBatch, tile: QuadTileView, tallies: readonly Uint32Array[], lf: Float64Array, scores: Float64Array): void {
  const { cells, stride, count } = batch;
  sparseGenotypeRowCells(batch, tile, tallies);
  scores.fill(0, 0, count);
  const term = (n0: number, n1: number): number => lf[n0 + n1 + 1] - lf[n0] - lf[n1];
  for (let ab = 0; ab < 9; ab++) {
    const o = 9 * ab * stride, p = (81 + 9 * ab) * stride;
    for (let q = 0; q < count; q++) {
      const e00 = cells[o + q], e01 = cells[o + stride + q], e10 = cells[o + 3 * stride + q], e11 = cells[o + 4 * stride + q];
      const f00 = cells[p + q], f01 = cells[p + stride + q], f10 = cells[p + 3 * stride + q], f11 = cells[p + 4 * stride + q];
      const eP0 = cells[o + 6 * stride + q], eP1 = cells[o + 7 * stride + q], fP0 = cells[p + 6 * stride + q], fP1 = cells[p + 7 * stride + q];
      const e02 = cells[o + 2 * stride + q] - e00 - e01, e12 = cells[o + 5 * stride + q] - e10 - e11;
      const f02 = cells[p + 2 * stride + q] - f00 - f01, f12 = cells[p + 5 * stride + q] - f10 - f11;
      let sum = scores[q];
      sum += term(e00, f00);
      sum += term(e01, f01);
      sum += term(e02, f02);
      sum += term(e10, f10);
      sum += term(e11, f11);
      sum += term(e12, f12);
      sum += term(eP0 - e00 - e10, fP0 - f00 - f10);
      sum += term(eP1 - e01 - e11, fP1 - f01 - f11);
      sum += term(cells[o + 8 * stride + q] - eP0 - eP1 - e02 - e12, cells[p + 8 * stride + q] - fP0 - fP1 - f02 - f12);
      scores[q] = sum;
    }
  }
}

/** Genotypes of (i, j) for every (z, w) ∈ {g0, g1, P}² of (k, l): entries 27a + 9b + 3z + w, from the GEMM. */
function sparseGenotypeRowCells(batch: QuadBatch, tile: QuadTileView, tallies: readonly Uint32Array[]): void {
  const { cells, stride, count } = batch;
  const at = batch.row * tile.colK.length + batch.colFirst;
  for (let cls = 0; cls < 2; cls++) {
    for (let zw = 0; zw < 9; zw++) {
      const sources = Array.from({ length: 9 }, (_, xy) => tallies[81 * cls + 9 * xy + zw]);
      genotypeSlabOf(sources, at, count, cells, (81 * cls + zw) * stride, 27 * stride, 9 * stride);
    }
  }
}

/**
 * The 3 × 3 slab of `sources` (u, v) ∈ {g0, g1, P}², source 3u + v at index `at + q`, turned into genotype cells at
 * `out[base + u·strideU + v·strideV + q]`: P − g0 − g1 along v, then along u.
 */
function genotypeSlabOf(
  sources: readonly Uint32Array[], at: number, count: number, out: Int32Array, base: number, strideU: number, strideV: number,
): void {
  const [s00, s01, s02, s10, s11, s12, s20, s21, s22] = sources;
  const o0 = base, o1 = base + strideU, o2 = base + 2 * strideU;
  const v1 = strideV, v2 = 2 * strideV;
  for (let q = 0; q < count; q++) {
    const a = at + q;
    const e00 = s00[a], e01 = s01[a], e10 = s10[a], e11 = s11[a], eP0 = s20[a], eP1 = s21[a];
    const e02 = s02[a] - e00 - e01;
    const e12 = s12[a] - e10 - e11;
    out[o0 + q] = e00;
    out[o0 + v1 + q] = e01;
    out[o0 + v2 + q] = e02;
    out[o1 + q] = e10;
    out[o1 + v1 + q] = e11;
    out[o1 + v2 + q] = e12;
    out[o2 + q] = eP0 - e00 - e10;
    out[o2 + v1 + q] = eP1 - e01 - e11;
    out[o2 + v2 + q] = s22[a] - eP0 - eP1 - e02 - e12;
  }
}

/**
 * A dense row's vector tallies with genotypes (a, b) of (i, j) in place of (x, y) ∈ {g0, g1, P}²: (a, b) with
 * vector v's plane g0, g1, P at `out[((9·cls + 3a + b)·3 + kind)·numVectorCols + v − vectorFirst]` (54 ×
 * numVectorCols). Every quadruple of the row reads them at its k and l, so they are made once per row.
 */
export function rowVectorGenotypes(tile: QuadTileView, vectorTallies: readonly Uint32Array[], row: number, out: Int32Array): void {
  const numCols = tile.numVectorCols;
  for (let cls = 0; cls < 2; cls++) {
    for (let kind = 0; kind < 3; kind++) {
      const sources = Array.from({ length: 9 }, (_, xy) => vectorTallies[27 * cls + 3 * xy + kind]);
      genotypeSlabOf(sources, row * numCols, numCols, out, (27 * cls + kind) * numCols, 9 * numCols, 3 * numCols);
    }
  }
}

/**
 * Genotype column pairs from the GEMM and the products with P of k or l from the row's vector genotypes
 * (rowVectorGenotypes; no missing call: P of a vector is its class, so (a of i)(b of j)(P of k) counts (a, b)).
 * Groups as quadTallyPlan orders them: `36·cls + 4·(3x + y) + 2z + w`.
 */
export function denseQuadCells(batch: QuadBatch, tile: QuadTileView, tallies: readonly Uint32Array[], vectorGenotypes: Int32Array): void {
  const { cells, stride, count, colFirst } = batch;
  const { colK, colL, vectorFirst, numVectorCols } = tile;
  denseGenotypeColumnCells(batch, tile, tallies);
  for (let cls = 0; cls < 2; cls++) {
    for (let ab = 0; ab < 9; ab++) {
      const o = (81 * cls + 9 * ab) * stride;
      const g0 = (27 * cls + 3 * ab) * numVectorCols - vectorFirst, g1 = g0 + numVectorCols, gP = g1 + numVectorCols;
      for (let q = 0; q < count; q++) {
        const k = colK[colFirst + q], l = colL[colFirst + q];
        const e00 = cells[o + q], e01 = cells[o + stride + q], e10 = cells[o + 3 * stride + q], e11 = cells[o + 4 * stride + q];
        const l0 = vectorGenotypes[g0 + l], l1 = vectorGenotypes[g1 + l];
        // (z, w) = (g, P): (a, b, g of k); (P, g): (a, b, g of l); (P, P): (a, b) = (a, b, P of k).
        const e02 = vectorGenotypes[g0 + k] - e00 - e01;
        const e12 = vectorGenotypes[g1 + k] - e10 - e11;
        cells[o + 2 * stride + q] = e02;
        cells[o + 5 * stride + q] = e12;
        cells[o + 6 * stride + q] = l0 - e00 - e10;
        cells[o + 7 * stride + q] = l1 - e01 - e11;
        cells[o + 8 * stride + q] = vectorGenotypes[gP + k] - l0 - l1 - e02 - e12;
      }
    }
  }
}

/**
 * K2 of a dense batch into `scores[0, count)` without storing the cells with g = 2 at k or l: denseQuadCells's cells
 * made (a, b) at a time for both classes, whose 9 terms lf[n0 + n1 + 1] − lf[n0] − lf[n1] are added at once — cells
 * 9(3a + b) … in order, so k2Score's sum.
 */
export function denseQuadK2(
  batch: QuadBatch, tile: QuadTileView, tallies: readonly Uint32Array[], vectorGenotypes: Int32Array, lf: Float64Array, scores: Float64Array,
): void {
  const { cells, stride, count, colFirst } = batch;
  const { colK, colL, vectorFirst, numVectorCols } = tile;
  denseGenotypeColumnCells(batch, tile, tallies);
  scores.fill(0, 0, count);
  const term = (n0: number, n1: number): number => lf[n0 + n1 + 1] - lf[n0] - lf[n1];
  for (let ab = 0; ab < 9; ab++) {
    const o = 9 * ab * stride, p = (81 + 9 * ab) * stride;
    const g0 = 3 * ab * numVectorCols - vectorFirst, g1 = g0 + numVectorCols, gP = g1 + numVectorCols;
    const h0 = g0 + 27 * numVectorCols, h1 = g1 + 27 * numVectorCols, hP = gP + 27 * numVectorCols;
    for (let q = 0; q < count; q++) {
      const k = colK[colFirst + q], l = colL[colFirst + q];
      const e00 = cells[o + q], e01 = cells[o + stride + q], e10 = cells[o + 3 * stride + q], e11 = cells[o + 4 * stride + q];
      const f00 = cells[p + q], f01 = cells[p + stride + q], f10 = cells[p + 3 * stride + q], f11 = cells[p + 4 * stride + q];
      const l0 = vectorGenotypes[g0 + l], l1 = vectorGenotypes[g1 + l], m0 = vectorGenotypes[h0 + l], m1 = vectorGenotypes[h1 + l];
      const e02 = vectorGenotypes[g0 + k] - e00 - e01, e12 = vectorGenotypes[g1 + k] - e10 - e11;
      const f02 = vectorGenotypes[h0 + k] - f00 - f01, f12 = vectorGenotypes[h1 + k] - f10 - f11;
      let sum = scores[q];
      sum += term(e00, f00);
      sum += term(e01, f01);
      sum += term(e02, f02);
      sum += term(e10, f10);
      sum += term(e11, f11);
      sum += term(e12, f12);
      sum += term(l0 - e00 - e10, m0 - f00 - f10);
      sum += term(l1 - e01 - e11, m1 - f01 - f11);
      sum += term(vectorGenotypes[gP + k] - l0 - l1 - e02 - e12, vectorGenotypes[hP + k] - m0 - m1 - f02 - f12);
      scores[q] = sum;
    }
  }
}

/** Genotypes of (i, j) for the four genotype (z, w) ∈ {g0, g1}² of (k, l): cells 27a + 9b + 3z + w, from the GEMM. */
function denseGenotypeColumnCells(batch: QuadBatch, tile: QuadTileView, tallies: readonly Uint32Array[]): void {
  const { cells, stride, count } = batch;
  const at = batch.row * tile.colK.length + batch.colFirst;
  for (let cls = 0; cls < 2; cls++) {
    for (let zw = 0; zw < 4; zw++) {
      const sources = Array.from({ length: 9 }, (_, xy) => tallies[36 * cls + 4 * xy + zw]);
      genotypeSlabOf(sources, at, count, cells, (81 * cls + 3 * (zw >> 1) + (zw & 1)) * stride, 27 * stride, 9 * stride);
    }
  }
}
