// formatFloat32: shortest text that reads back as the same float32.
import { describe, expect, it } from 'vitest';
import { formatFloat32 } from '../../src/cli/formatFloat32.js';

describe('formatFloat32', () => {
  it('prints float32 values with the fewest digits', () => {
    expect(formatFloat32(Math.fround(0.1))).toBe('0.1');
    expect(formatFloat32(0.5)).toBe('0.5');
    expect(formatFloat32(0)).toBe('0');
    expect(formatFloat32(Math.fround(1 / 3))).toBe('0.33333334');
    expect(formatFloat32(3.4028234663852886e38)).toBe('3.4028235e+38');
    expect(formatFloat32(Math.fround(1e-7))).toBe('1e-7');
  });

  it('round-trips many values exactly through float32', () => {
    const values = new Float32Array(2000).map((_, i) => Math.sin(i) * 10 ** ((i % 13) - 6));
    for (const value of values) expect(Math.fround(Number(formatFloat32(value)))).toBe(value);
  });
});
