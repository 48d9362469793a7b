// JobSpecs of Czekanowski runs for tests, and a seeded file of real (non-integer) values.
import { writeFileSync } from 'node:fs';
import type { RealPrecision } from '../../../src/core/realProblems.js';
import type { JobSpec } from '../../../src/engine/index.js';
import { makeJob, type JobOptions } from '../../engine/jobFixtures.js';

export function czekanowskiJob(o: JobOptions & { precision: RealPrecision }): JobSpec {
  const job = makeJob({ ...o, metric: 'czekanowski' });
  return { ...job, metricSpec: { ...job.metricSpec, precision: o.precision } };
}

/** Non-integer values in [0, 100) from a small LCG (sums are not exact: they test the order of additions). */
export function seededRealValues(count: number, seed: number, precision: RealPrecision): Float64Array {
  const out = new Float64Array(count);
  let state = seed >>> 0;
  for (let e = 0; e < count; e++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const value = (state / 2 ** 32) * 100;
    out[e] = precision === 'single' ? Math.fround(value) : value;
  }
  return out;
}

/** Writes `values` as CoMet's raw little-endian file of `precision` (SPEC §8). */
export function writeRealFile(path: string, values: Float64Array, precision: RealPrecision): void {
  const bytes = precision === 'double' ? new Uint8Array(Float64Array.from(values).buffer) : new Uint8Array(Float32Array.from(values).buffer);
  writeFileSync(path, bytes);
}
