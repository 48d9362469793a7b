// LD windows (PLINK 1.9's --ld-window, --ld-window-kb, inter-chr): which pairs of vectors a windowed 2-way run keeps,
// as per-vector limits that make the kept columns of a row a few intervals and the band a staircase of tiles.
import { UserError } from './errors.js';

/**
 * A window with PLINK 1.9's meaning. Vectors are in file order, grouped by chromosome (each chromosome one run of
 * vectors) and sorted by position within one. A pair (i, j), i < j, on one chromosome is in the window when
 * j − i < maxVectorSpan (`--ld-window N`) and bp(j) − bp(i) ≤ maxDistanceBp (`--ld-window-kb KB`, KB·1000 bp); a pair
 * on two chromosomes is in it only with interChr. A null limit does not limit.
 */
export interface PairWindowSpec {
  readonly maxVectorSpan: number | null;
  readonly maxDistanceBp: number | null;
  readonly interChr: boolean;
}

/**
 * The window as per-vector limits (global vector indices), plain data that threads and workers share:
 * - `bandBegin[v]` ≤ v < `bandEnd[v]`: the vectors u of v's chromosome with (u, v) in the window are bandBegin[v] … v − 1
 *   and v + 1 … bandEnd[v] − 1; both arrays are non-decreasing in v (that makes the band a staircase).
 * - `chrBegin[v]`, `chrEnd[v]`: v's chromosome's vectors.
 */
export interface PairWindowLimits {
  readonly spec: PairWindowSpec;
  readonly bandBegin: Uint32Array;
  readonly bandEnd: Uint32Array;
  readonly chrBegin: Uint32Array;
  readonly chrEnd: Uint32Array;
}

/** Chromosome and base-pair position of each vector, in vector order; `record(v)` names vector v in messages. */
export interface VectorLoci {
  readonly chromosome: readonly string[];
  readonly position: readonly number[];
  readonly record: (v: number) => string;
}

/** `--ld-window-kb KB` in base pairs, as PLINK 1.9 takes it (KB·1000 rounded down, a rounding error forgiven). */
export function windowKbToBp(kb: number): number {
  return Math.floor(kb * 1000 * (1 + 2 ** -40));
}

/**
 * The limits of `spec` over `loci`. Refuses, naming the first offending record, a chromosome whose vectors are not one
 * run or whose positions decrease (the window would not be a band).
 */
export function pairWindowLimits(spec: PairWindowSpec, loci: VectorLoci, source: string): PairWindowLimits {
  const numVector = loci.chromosome.length;
  const chrBegin = sharedWords(numVector);
  const chrEnd = sharedWords(numVector);
  const finished = new Set<string>();
  for (let v = 0; v < numVector;) {
    const chromosome = loci.chromosome[v];
    if (finished.has(chromosome)) {
      throw new UserError(`${source}: ${loci.record(v)} is on chromosome ${chromosome} again after other chromosomes: LD windows need each chromosome's variants together, sorted by position`);
    }
    let end = v + 1;
    while (end < numVector && loci.chromosome[end] === chromosome) {
      if (loci.position[end] < loci.position[end - 1]) {
        throw new UserError(`${source}: ${loci.record(end)} at position ${loci.position[end]} comes after position ${loci.position[end - 1]}: LD windows need variants sorted by position within each chromosome`);
      }
      end++;
    }
    chrBegin.fill(v, v, end);
    chrEnd.fill(end, v, end);
    finished.add(chromosome);
    v = end;
  }
  const bandEnd = sharedWords(numVector);
  let reach = 0;
  for (let v = 0; v < numVector; v++) {
    // The reach of v + 1 is at least v's: positions and spans only grow along a chromosome.
    let limit = chrEnd[v];
    if (spec.maxVectorSpan !== null) limit = Math.min(limit, v + spec.maxVectorSpan);
    reach = Math.max(reach, v + 1);
    while (reach < limit && (spec.maxDistanceBp === null || loci.position[reach] - loci.position[v] <= spec.maxDistanceBp)) reach++;
    bandEnd[v] = reach;
  }
  const bandBegin = sharedWords(numVector);
  let first = 0;
  for (let v = 0; v < numVector; v++) {
    while (bandEnd[first] <= v) first++;
    bandBegin[v] = Math.min(first, v);
  }
  return { spec, bandBegin, bandEnd, chrBegin, chrEnd };
}

/** Words in shared memory: finalize workers and in-process ranks read the limits without copies. */
function sharedWords(count: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * Math.max(1, count)), 0, count);
}

/** A half-open range of global vector indices. */
export interface VectorInterval {
  readonly begin: number;
  readonly end: number;
}

/**
 * The vectors j ≠ v with (v, j) in the window among [begin, end), as at most three ascending intervals appended to `out`
 * (cleared first); v itself is left out.
 */
export function windowColumnsOf(limits: PairWindowLimits, v: number, begin: number, end: number, out: VectorInterval[]): VectorInterval[] {
  out.length = 0;
  const push = (a: number, b: number): void => {
    const lo = Math.max(a, begin);
    const hi = Math.min(b, end);
    if (lo < hi) out.push({ begin: lo, end: hi });
  };
  if (limits.spec.interChr) push(0, limits.chrBegin[v]);
  push(limits.bandBegin[v], v);
  push(v + 1, limits.bandEnd[v]);
  if (limits.spec.interChr) push(limits.chrEnd[v], limits.bandEnd.length);
  return out;
}

/**
 * {@link windowColumnsOf} without objects, for the sinks' per-row hot path: the intervals as begin, end pairs in
 * `out[0 …]` (room for 3 pairs), returning their number.
 */
export function windowColumnRanges(limits: PairWindowLimits, v: number, begin: number, end: number, out: Int32Array): number {
  let count = 0;
  const push = (a: number, b: number): void => {
    const lo = a > begin ? a : begin;
    const hi = b < end ? b : end;
    if (lo < hi) {
      out[2 * count] = lo;
      out[2 * count + 1] = hi;
      count++;
    }
  };
  const interChr = limits.spec.interChr;
  if (interChr) push(0, limits.chrBegin[v]);
  push(limits.bandBegin[v], v);
  push(v + 1, limits.bandEnd[v]);
  if (interChr) push(limits.chrEnd[v], limits.bandEnd.length);
  return count;
}

/** Whether the pair (a, b) of global vector indices, a ≠ b, is in the window. */
export function pairInWindow(limits: PairWindowLimits, a: number, b: number): boolean {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  return hi < limits.bandEnd[lo] || (limits.spec.interChr && hi >= limits.chrEnd[lo]);
}

/**
 * The columns some row of [rowBegin, rowEnd) keeps among [colBegin, colEnd), as at most three ascending intervals: a
 * superset that is exact at the rows' ends (the band of consecutive rows is one interval: each row's holds the row).
 */
export function windowColumnsOfRows(
  limits: PairWindowLimits, rows: VectorInterval, cols: VectorInterval,
): VectorInterval[] {
  const out: VectorInterval[] = [];
  if (rows.begin >= rows.end) return out;
  const last = rows.end - 1;
  const push = (a: number, b: number): void => {
    const lo = Math.max(a, cols.begin, out.length > 0 ? out[out.length - 1].end : 0);
    const hi = Math.min(b, cols.end);
    if (lo < hi) {
      const previous = out[out.length - 1];
      if (previous !== undefined && previous.end === lo) out[out.length - 1] = { begin: previous.begin, end: hi };
      else out.push({ begin: lo, end: hi });
    }
  };
  if (limits.spec.interChr) push(0, limits.chrBegin[last]);
  // The rows themselves are in the band: a pair of two rows (a diagonal tile) may be in the window.
  push(limits.bandBegin[rows.begin], limits.bandEnd[last]);
  if (limits.spec.interChr) push(limits.chrEnd[rows.begin], limits.bandEnd.length);
  return out;
}

/** Whether any pair of rows × cols (distinct vectors) is in the window (a step or tile that does not is skipped). */
export function windowTouches(limits: PairWindowLimits, rows: VectorInterval, cols: VectorInterval): boolean {
  const scratch: VectorInterval[] = [];
  for (let v = rows.begin; v < rows.end; v++) {
    if (windowColumnsOf(limits, v, cols.begin, cols.end, scratch).length > 0) return true;
  }
  return false;
}

/** Pairs in the window among rows × cols, pairs of distinct vectors counted once each (row < col when both ranges meet). */
export function windowPairsIn(limits: PairWindowLimits, rows: VectorInterval, cols: VectorInterval, options: { readonly strictUpper: boolean }): number {
  const scratch: VectorInterval[] = [];
  let numPairs = 0;
  for (let v = rows.begin; v < rows.end; v++) {
    const begin = options.strictUpper ? Math.max(cols.begin, v + 1) : cols.begin;
    for (const interval of windowColumnsOf(limits, v, begin, cols.end, scratch)) numPairs += interval.end - interval.begin;
  }
  return numPairs;
}
