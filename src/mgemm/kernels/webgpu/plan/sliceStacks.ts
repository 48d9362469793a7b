// Which j-slices of a 3-way request share one GEMM. A slice alone is a small GEMM (j rows against n − j columns
// at most): a 4096-vector tetrahedron's slices average ~2 M outputs, a few waves of the u8 kernel's 128 × 256
// tiles on a large GPU, and one GEMM dispatch (with its expansion and its barrier) per slice. Stacking the pair
// products of consecutive slices into one A operand, against the union of their z ranges, makes one GEMM of
// many slices; each slice's finalize (or read-back) then takes its own rows and columns out of the stacked output.
// Columns of the union outside a slice's own z range are computed and never read: stacks admit a slice only while
// that waste stays small (consecutive tetrahedron slices differ by one column).

import type { Tally3Slice } from '../../../contract.js';

/** Rows of one slice in a stack: slice rows [sliceRowFirst, +numRows) (row 0 = x row xFirst) at stack rows [stackRowFirst, +numRows). */
export interface StackPart {
  readonly sliceIdx: number;
  readonly sliceRowFirst: number;
  readonly numRows: number;
  readonly stackRowFirst: number;
}

/** One stacked GEMM: its parts' pair products one after another (numRows in all) against z rows [zFirst, +zCount). */
export interface SliceStack {
  readonly parts: readonly StackPart[];
  readonly numRows: number;
  readonly zFirst: number;
  readonly zCount: number;
}

export interface SliceStackLimits {
  /** Rows of a stack at most (the pair-product buffer's rows). */
  readonly maxRows: number;
  /** Outputs (rows × union columns) of a stack at most, unless one part alone has more. */
  readonly maxOutputs: number;
  /** Computed outputs of a stack at most this many times its slices' own (rows × own columns). */
  readonly maxWasteRatio: number;
  /** Where slices' rows must be cut (x's resident chunk boundaries): no part straddles one. */
  readonly rowCuts: readonly number[];
}

/**
 * The stacks of a request's slices, in slice order (empty slices have none). Each slice is cut into parts at
 * `rowCuts` (x rows) and at maxRows; parts join the current stack while its rows, outputs and waste stay within
 * the limits.
 */
export function stackSlices(slices: readonly Tally3Slice[], limits: SliceStackLimits): SliceStack[] {
  if (!(limits.maxRows >= 1) || !(limits.maxWasteRatio >= 1)) throw new RangeError('stackSlices: maxRows must be ≥ 1 and maxWasteRatio ≥ 1');
  const cuts = [...limits.rowCuts].sort((a, b) => a - b);
  const stacks: SliceStack[] = [];
  let parts: StackPart[] = [];
  let numRows = 0;
  let zFirst = 0;
  let zEnd = 0;
  let ownOutputs = 0;
  const close = (): void => {
    if (parts.length > 0) stacks.push({ parts, numRows, zFirst, zCount: zEnd - zFirst });
    parts = [];
    numRows = 0;
    ownOutputs = 0;
  };
  slices.forEach((slice, sliceIdx) => {
    if (slice.xCount === 0 || slice.zCount === 0) return;
    const sliceZEnd = slice.zFirst + slice.zCount;
    for (const [first, count] of partsOf(slice, cuts, limits.maxRows)) {
      if (parts.length > 0) {
        const rows = numRows + count;
        const cols = Math.max(zEnd, sliceZEnd) - Math.min(zFirst, slice.zFirst);
        const outputs = rows * cols;
        const fits = rows <= limits.maxRows && outputs <= limits.maxOutputs
          && outputs <= limits.maxWasteRatio * (ownOutputs + count * slice.zCount);
        if (!fits) close();
      }
      if (parts.length === 0) {
        zFirst = slice.zFirst;
        zEnd = sliceZEnd;
      }
      parts.push({ sliceIdx, sliceRowFirst: first - slice.xFirst, numRows: count, stackRowFirst: numRows });
      numRows += count;
      zFirst = Math.min(zFirst, slice.zFirst);
      zEnd = Math.max(zEnd, sliceZEnd);
      ownOutputs += count * slice.zCount;
    }
  });
  close();
  return stacks;
}

/** A slice's x rows as [first, count] runs: cut at each of `cuts` inside it, then into runs of at most maxRows. */
function partsOf(slice: Tally3Slice, cuts: readonly number[], maxRows: number): [number, number][] {
  const end = slice.xFirst + slice.xCount;
  const bounds = [slice.xFirst, ...cuts.filter((c) => c > slice.xFirst && c < end), end];
  const runs: [number, number][] = [];
  for (let b = 0; b + 1 < bounds.length; b++) {
    for (let first = bounds[b]; first < bounds[b + 1]; first += maxRows) runs.push([first, Math.min(maxRows, bounds[b + 1] - first)]);
  }
  return runs;
}
