// --ld-window-r2 R keeps float32 r² ≥ R (PLINK's ≥, on snptally's float32 threshold): checked on the float32 values
// next to R through the run's own threshold test (core/thresholds.ts), and --ld-window-kb's rounding to bp.
import { describe, expect, it } from 'vitest';
import { markPassingEntries } from '../../src/core/thresholds.js';
import { windowKbToBp } from '../../src/core/pairWindow.js';
import { atLeastThreshold } from '../../src/cli/windowOptions.js';

/** The float32 values one step below and above `x` (a float32). */
function neighbours(x: number): [number, number] {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, x, true);
  const bits = view.getUint32(0, true);
  view.setUint32(0, bits - 1, true);
  const below = view.getFloat32(0, true);
  view.setUint32(0, bits + 1, true);
  return [below, view.getFloat32(0, true)];
}

describe('--ld-window-r2', () => {
  for (const least of [0.2, 0.5, 0.8, 1, 1e-7]) {
    it(`${least}: keeps exactly the float32 values ≥ it`, () => {
      const threshold = atLeastThreshold(least);
      const f = Math.fround(least);
      const candidates = [...neighbours(f), f, ...neighbours(neighbours(f)[0]), 0, 1];
      const keep = new Uint8Array(candidates.length);
      markPassingEntries(threshold, Float64Array.from(candidates), candidates.length, keep);
      expect([...keep]).toEqual(candidates.map((v) => (Math.fround(v) >= least ? 1 : 0)));
    });
  }

  it('0 keeps everything (no threshold)', () => {
    expect(atLeastThreshold(0)).toEqual({ kind: 'none' });
  });
});

describe('--ld-window-kb in bp', () => {
  it('KB·1000 rounded down, a rounding error of the product forgiven (as plink1.9: 1.001 kb reaches 1001 bp)', () => {
    expect([1000, 1.001, 0.0015, 2.5, 0].map(windowKbToBp)).toEqual([1_000_000, 1001, 1, 2500, 0]);
  });
});
