// The canonical order of a tuple's cells: its SNPs by increasing global index, the first slowest — the order the
// search rebuilds a candidate's table in (cli/epistasis/tupleTables.ts). Finalize puts a tuple's cells in it before
// scoring, whichever SNP the decomposition made the row (2-way) or i, j, k (3-way): a score adds its cells in cell
// order, so another order could round to another double — another checksum, and another float32 engine value than
// the search's rescoring — on another decomposition.

/** A pair's 9 cells at `at` of `cells`, transposed in place (the row SNP's genotype becomes the fast index). */
export function transposePairCellsInPlace(cells: Float64Array, at: number): void {
  for (const [p, q] of [[1, 3], [2, 6], [5, 7]] as const) {
    const held = cells[at + p];
    cells[at + p] = cells[at + q];
    cells[at + q] = held;
  }
}

/** Canonical stride of one SNP of a triple: 9 for the smallest global index, 3 for the middle one, 1 for the largest. */
export function tripleStride(g: number, other1: number, other2: number): number {
  const numAbove = (other1 > g ? 1 : 0) + (other2 > g ? 1 : 0);
  return numAbove === 2 ? 9 : numAbove === 1 ? 3 : 1;
}

/**
 * The 27 cells per class of a triple (i, j, k), cell 9a + 3b + c for genotypes a of i, b of j, c of k, in canonical
 * order into `out` (54 entries: controls, then cases). Strides from tripleStride.
 */
export function canonicalTripleCells(cells: Float64Array, si: number, sj: number, sk: number, out: Float64Array): Float64Array {
  for (let m = 0; m < 27; m++) {
    const place = Math.floor(m / 9) * si + (Math.floor(m / 3) % 3) * sj + (m % 3) * sk;
    out[place] = cells[m];
    out[27 + place] = cells[27 + m];
  }
  return out;
}
