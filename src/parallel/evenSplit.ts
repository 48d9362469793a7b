// The one even-split rule used for phases, replicas and stages: part p of n gets [floor(total·p/n), floor(total·(p+1)/n)).

/** A half-open range of integers [begin, end). */
export interface IndexRange {
  readonly begin: number;
  readonly end: number;
}

/**
 * Part `partIdx` of `total` items cut into `numParts` contiguous parts.
 * The floor form (CoMet's) gives parts that differ in size by at most one and may be empty
 * when `numParts > total`; the parts of all `partIdx` tile [0, total) in order.
 */
export function evenSplit(total: number, numParts: number, partIdx: number): IndexRange {
  return {
    begin: Math.floor((total * partIdx) / numParts),
    end: Math.floor((total * (partIdx + 1)) / numParts),
  };
}

/** Number of integers in a range (0 when empty). */
export function rangeLength(range: IndexRange): number {
  return Math.max(0, range.end - range.begin);
}
