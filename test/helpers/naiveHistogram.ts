// A naive reference of SPEC §9's histogram file: every pair's (triple's) CCC/DUO values straight from the field
// codes with SPEC §3's formulas written out here, in SPEC's order of operations, bucketed as §9 says, and the
// file's text with its bucket labels from the system's printf (the C library's "%.3f").
import { execFileSync } from 'node:child_process';
import { pairOrTripleWay, type MetricSpec } from '../../src/core/types.js';

/** Field codes of a whole problem: `code(v, f)`. */
export type CodeSource = (v: number, f: number) => number;

/** Bits counted of a code (SPEC §1): CCC both, DUO the low one; `10` is missing (sparse) or counts like `01`. */
function bitCount(code: number, bit: 0 | 1, metric: string, sparse: boolean): number {
  if (sparse && code === 0b10) return 0;
  const x = code === 0b10 ? 0b01 : code;
  const ones = metric === 'duo' ? x & 1 : (x & 1) + (x >> 1);
  const numBits = metric === 'duo' ? 1 : 2;
  return bit === 1 ? ones : numBits - ones;
}

/** SPEC §3, 2-way: rc, rsum by mode, then ((mult·F)·(1 − p·fmin))·(1 − p·fmax). */
function value2(s: MetricSpec, C: number, m: number, r: number, sia: number, sjb: number, ci: number, cj: number, cij: number): number {
  let rci: number, rcj: number, rsum: number;
  if (s.sparse) {
    if (ci === 0 || cj === 0 || cij === 0) return 0;
    const lo = Math.min(ci, cj), hi = Math.max(ci, cj);
    const R = 1 / (lo * hi * cij);
    rci = (cj * cij) * R;
    rcj = (ci * cij) * R;
    rsum = (lo * hi) * R;
  } else {
    rci = 1 / m;
    rcj = 1 / m;
    rsum = (1 / (C * C)) * (1 / m);
  }
  const fi = ((1 / C) * rci) * sia;
  const fj = ((1 / C) * rcj) * sjb;
  const F = rsum * r;
  return ((s.multiplier * F) * (1 - s.param * Math.min(fi, fj))) * (1 - s.param * Math.max(fi, fj));
}

/** SPEC §3, 3-way: dense rc = 1/m, rsum = (1/C³)(1/m); sparse rc_t = 1/c_t, rsum = 1/cijk; three factors sorted. */
function value3(s: MetricSpec, C: number, m: number, r: number, sv: readonly number[], cv: readonly number[], cijk: number): number {
  if (s.sparse && (cv.some((c) => c === 0) || cijk === 0)) return 0;
  const rsum = s.sparse ? 1 / cijk : (1 / (C * C * C)) * (1 / m);
  const f = sv.map((sa, t) => ((1 / C) * (s.sparse ? 1 / cv[t] : 1 / m)) * sa).sort((a, b) => a - b);
  return (((s.multiplier * (rsum * r)) * (1 - s.param * f[0])) * (1 - s.param * f[1])) * (1 - s.param * f[2]);
}

/** Every unique tuple's 2^way values (entry bits a b [c] as an index), vectors ascending. */
export function specTupleValues(spec: MetricSpec, numVector: number, numField: number, code: CodeSource): number[][] {
  const C = spec.metric === 'duo' ? 1 : 2;
  const codes = Array.from({ length: numVector }, (_, v) => Array.from({ length: numField }, (__, f) => code(v, f)));
  const present = (x: number): number => (spec.sparse && x === 0b10 ? 0 : 1);
  const sums = codes.map((row) => row.reduce((acc, x) => acc + bitCount(x, 1, spec.metric, spec.sparse), 0));
  const counts = codes.map((row) => row.reduce((acc, x) => acc + present(x), 0));
  const sOf = (v: number, bit: number): number => (bit === 1 ? sums[v] : C * counts[v] - sums[v]);
  const tuples: number[][] = [];
  const bits = (x: number, b: number, v: number, f: number): number => bitCount(codes[v][f], b as 0 | 1, spec.metric, spec.sparse) * x;
  if (spec.numWay === 2) {
    for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) {
      const r = [0, 0, 0, 0];
      for (let f = 0; f < numField; f++) for (let e = 0; e < 4; e++) r[e] += bits(bits(1, e >> 1, i, f), e & 1, j, f);
      const cij = r[0] + r[1] + r[2] + r[3];
      tuples.push(r.map((re, e) => value2(spec, C, numField, re, sOf(i, e >> 1), sOf(j, e & 1), counts[i], counts[j], cij)));
    }
    return tuples;
  }
  for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) for (let k = j + 1; k < numVector; k++) {
    const r = new Array<number>(8).fill(0);
    for (let f = 0; f < numField; f++) for (let e = 0; e < 8; e++) r[e] += bits(bits(bits(1, e >> 2, i, f), (e >> 1) & 1, j, f), e & 1, k, f);
    const cijk = r.reduce((acc, x) => acc + x, 0);
    tuples.push(r.map((re, e) => value3(spec, C, numField, re, [sOf(i, e >> 2), sOf(j, (e >> 1) & 1), sOf(k, e & 1)], [counts[i], counts[j], counts[k]], cijk)));
  }
  return tuples;
}

/** SPEC §9's bucket: (int)(x·1000), clamped to [0, nb − 1]. */
function bucketOf(x: number, numBuckets: number): number {
  return Math.min(numBuckets - 1, Math.max(0, Math.trunc(x * 1000)));
}

/** Counts per column (SPEC §9's columns in order), each by bucket; undefined values (NaN) are left out. */
export function naiveHistogramCounts(numWay: 2 | 3, numBuckets: number, tuples: readonly (readonly number[])[]): number[][] {
  const columns = Array.from({ length: numWay + 2 }, () => new Array<number>(numBuckets).fill(0));
  const allOnes = 2 ** numWay - 1;
  for (const values of tuples) {
    values.forEach((x, e) => {
      if (Number.isNaN(x)) return;
      const ones = (e & 1) + ((e >> 1) & 1) + ((e >> 2) & 1);
      columns[ones][bucketOf(x, numBuckets)]++;
    });
    columns[numWay + 1][bucketOf(values[0] + values[allOnes], numBuckets)]++;
  }
  return columns;
}

const labelsByBuckets = new Map<number, string[]>();

/** printf("%.3f", b/1000.0) for b < numBuckets, from the system's printf. */
export function printfBucketLabels(numBuckets: number): string[] {
  let labels = labelsByBuckets.get(numBuckets);
  if (labels === undefined) {
    const args = Array.from({ length: numBuckets }, (_, b) => String(b / 1000));
    labels = execFileSync('printf', ['%.3f\\n', ...args], { encoding: 'utf8' }).trimEnd().split('\n');
    labelsByBuckets.set(numBuckets, labels);
  }
  return labels;
}

/** SPEC §9's file text of `columns` (counts by bucket) under `names`. */
export function histogramFileText(names: readonly string[], columns: readonly (readonly (number | bigint)[])[]): string {
  const labels = printfBucketLabels(columns[0].length);
  const lines = [['min', ...names].join('\t'), ...labels.map((label, b) => [label, ...columns.map((c) => String(c[b]))].join('\t'))];
  return `${lines.join('\n')}\n`;
}

/** The naive file of a CCC/DUO run: SPEC §9's columns, (int)(1000·mult) buckets. */
export function naiveHistogramFile(spec: MetricSpec, numVector: number, numField: number, code: CodeSource): string {
  const numBuckets = Math.trunc(1000 * spec.multiplier);
  const columns = naiveHistogramCounts(pairOrTripleWay(spec.numWay), numBuckets, specTupleValues(spec, numVector, numField, code));
  const names = spec.numWay === 2 ? ['LL', 'LH', 'HH', 'LL+HH'] : ['LLL', 'LLH', 'LHH', 'HHH', 'LLL+HHH'];
  return histogramFileText(names, columns);
}
