// A naive top-N reference: every entry of every tuple from the naive metric values (naiveHistogram.ts, naiveR2.ts),
// NaN left out, the threshold applied, all sorted by a full sort (stronger float32 value, then vector indices, then
// entry bits), the first N as SPEC §7 record words.
import type { MetricSpec } from '../../src/core/types.js';
import { specTupleValues, type CodeSource } from './naiveHistogram.js';
import { naiveR2 } from './naiveR2.js';

interface NaiveEntry {
  readonly vectors: readonly number[];
  readonly bits: readonly number[];
  readonly value: number;
}

/** Every entry of the run's tuples with its float32 value, vectors ascending. */
function allEntries(spec: MetricSpec, numVector: number, numField: number, code: CodeSource): NaiveEntry[] {
  if (spec.metric === 'r2') {
    const { values } = naiveR2(numVector, numField, spec.sparse, code);
    return [...values].map(([key, value]) => ({ vectors: key.split(',').map(Number), bits: [1, 1], value: Math.fround(value) }));
  }
  const tuples = specTupleValues(spec, numVector, numField, code);
  const vectorsOf: number[][] = [];
  for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) {
    if (spec.numWay === 2) vectorsOf.push([i, j]);
    else for (let k = j + 1; k < numVector; k++) vectorsOf.push([i, j, k]);
  }
  return tuples.flatMap((values, t) => values.map((value, e) => ({
    vectors: vectorsOf[t], bits: vectorsOf[t].map((_, w) => (e >> (spec.numWay - 1 - w)) & 1), value: Math.fround(value),
  })));
}

/** The `count` strongest entries (larger values) above `threshold` (null: all), as record words strongest first. */
export function naiveTopRecordWords(
  spec: MetricSpec, numVector: number, numField: number, code: CodeSource, count: number, threshold: number | null = null,
): Uint32Array {
  const entries = allEntries(spec, numVector, numField, code)
    .filter((x) => !Number.isNaN(x.value) && (threshold === null || x.value > threshold));
  entries.sort((a, b) => {
    if (a.value !== b.value) return b.value - a.value;
    for (let w = 0; w < a.vectors.length; w++) if (a.vectors[w] !== b.vectors[w]) return a.vectors[w] - b.vectors[w];
    for (let w = 0; w < a.bits.length; w++) if (a.bits[w] !== b.bits[w]) return a.bits[w] - b.bits[w];
    return 0;
  });
  const kept = entries.slice(0, count);
  const stride = spec.numWay + 1;
  const words = new Uint32Array(kept.length * stride);
  const values = new Float32Array(words.buffer);
  kept.forEach((x, r) => {
    x.vectors.forEach((v, w) => { words[r * stride + w] = 2 * v + x.bits[w]; });
    values[r * stride + spec.numWay] = x.value;
  });
  return words;
}
