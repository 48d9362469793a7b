// A naive, independent reference: every metric value straight from the field codes, one field at a time.
import { countBits, isMissing } from '../../src/core/bitCodes.js';
import { ChecksumAccumulator, entryUid2, entryUid3, formatChecksum } from '../../src/core/checksum.js';
import {
  denseValue2, denseValue3, sparseValue2, sparseValue3, type FormulaConstants,
} from '../../src/core/formulas.js';
import type { MetricSpec } from '../../src/core/types.js';
import { countedBitsPerField } from '../../src/core/types.js';

/** Field codes of a whole problem: `codes(v, f)`. */
export type CodeSource = (v: number, f: number) => number;

export interface NaiveResult {
  checksum: string;
  entries: number;
  zeros: number;
  /** key `i,j[,k],entry` → value */
  values: Map<string, number>;
}

/** All unique pair/triple values computed field by field, with the checksum over all entries. */
export function naiveMetrics(
  spec: MetricSpec, numVector: number, numField: number, code: CodeSource,
  options: {
    keepValues?: boolean;
    threshold?: number | null;
    /** Per-entry rule over a whole tuple's values (entry bits in order); overrides `threshold`. */
    tupleKeep?: (values: readonly number[]) => boolean[];
  } = {},
): NaiveResult {
  const k: FormulaConstants = {
    countedBits: countedBitsPerField(spec.metric), multiplier: spec.multiplier, param: spec.param,
  };
  const C = k.countedBits;
  const codes: number[][] = [];
  for (let v = 0; v < numVector; v++) {
    const row: number[] = [];
    for (let f = 0; f < numField; f++) row.push(code(v, f));
    codes.push(row);
  }
  const sums = codes.map((row) => row.reduce((s, x) => s + countBits(x, 1, spec.metric, spec.sparse), 0));
  const counts = codes.map((row) => row.reduce((s, x) => s + (isMissing(x, spec.sparse) ? 0 : 1), 0));
  const acc = new ChecksumAccumulator();
  const values = new Map<string, number>();
  /** Thresholds one tuple: `entries[e]` = [key, uid, value] with entry bits e. */
  const keepTuple = (entries: Array<[string, number, number]>): void => {
    const t = options.threshold ?? null;
    const passes = options.tupleKeep !== undefined
      ? options.tupleKeep(entries.map((entry) => entry[2]))
      : entries.map(([, , value]) => t === null || Math.fround(value) > t);
    entries.forEach(([key, uid, value], e) => {
      if (!passes[e]) return;
      acc.add(uid, value);
      if (options.keepValues) values.set(key, value);
    });
  };
  if (spec.numWay === 2) {
    for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) {
      const r = [[0, 0], [0, 0]];
      for (let f = 0; f < numField; f++) {
        for (const a of [0, 1] as const) for (const b of [0, 1] as const) {
          r[a][b] += countBits(codes[i][f], a, spec.metric, spec.sparse) * countBits(codes[j][f], b, spec.metric, spec.sparse);
        }
      }
      const cij = r[0][0] + r[0][1] + r[1][0] + r[1][1];
      const tuple: Array<[string, number, number]> = [];
      for (const a of [0, 1] as const) for (const b of [0, 1] as const) {
        const sia = a ? sums[i] : C * counts[i] - sums[i];
        const sjb = b ? sums[j] : C * counts[j] - sums[j];
        const value = spec.sparse
          ? sparseValue2(k, r[a][b], sia, sjb, counts[i], counts[j], cij)
          : denseValue2(k, r[a][b], sia, sjb, numField);
        tuple.push([`${i},${j},${a}${b}`, entryUid2(numVector, i, a, j, b), value]);
      }
      keepTuple(tuple);
    }
  } else {
    for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) for (let l = j + 1; l < numVector; l++) {
      const r = new Array<number>(8).fill(0);
      for (let f = 0; f < numField; f++) {
        for (let e = 0; e < 8; e++) {
          const a = (e >> 2) as 0 | 1, b = ((e >> 1) & 1) as 0 | 1, c = (e & 1) as 0 | 1;
          r[e] += countBits(codes[i][f], a, spec.metric, spec.sparse) * countBits(codes[j][f], b, spec.metric, spec.sparse)
            * countBits(codes[l][f], c, spec.metric, spec.sparse);
        }
      }
      const cijk = r.reduce((s, x) => s + x, 0);
      const tuple: Array<[string, number, number]> = [];
      for (let e = 0; e < 8; e++) {
        const a = (e >> 2) as 0 | 1, b = ((e >> 1) & 1) as 0 | 1, c = (e & 1) as 0 | 1;
        const s = (v: number, bit: number): number => (bit ? sums[v] : C * counts[v] - sums[v]);
        const value = spec.sparse
          ? sparseValue3(k, r[e], s(i, a), s(j, b), s(l, c), counts[i], counts[j], counts[l], cijk)
          : denseValue3(k, r[e], s(i, a), s(j, b), s(l, c), numField);
        tuple.push([`${i},${j},${l},${a}${b}${c}`, entryUid3(numVector, i, a, j, b, l, c), value]);
      }
      keepTuple(tuple);
    }
  }
  return { checksum: formatChecksum(acc.sum()), entries: acc.entries, zeros: acc.zeros, values };
}
