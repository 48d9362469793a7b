// When 3-way device finalize applies (mgemm/tripleFinalize.ts, src/engine/deviceFinalize3.ts), without a GPU:
// the uid and record-key bounds at their edges, the constants' range, and thresholds as float32 bits.
import { describe, expect, it } from 'vitest';
import { tripleFormulaOnDevice, tripleRecordKeysFit, type TripleFormula } from '../../src/mgemm/index.js';
import { tripleThresholdBits } from '../../src/analyses/deviceTriples.js';
import { seededRandom } from './planeFixtures.js';

const FORMULA: TripleFormula = { sparse: false, countedBits: 2, multiplier: 4.5, param: 2 / 3, numField: 100, denseRsum: (1 / 8) * (1 / 100) };

function float32OfBits(bits: number): number {
  return new Float32Array(Uint32Array.of(bits).buffer)[0];
}

describe('3-way device finalize preconditions', () => {
  it('keeps checksum uids + weight offsets below 2^52: nv³·8 + 2^30 ≤ 2^52', () => {
    expect(tripleFormulaOnDevice(FORMULA, 82570)).toBe(true);
    expect(tripleFormulaOnDevice(FORMULA, 82571)).toBe(false);
    // The largest uid of nv 82570 and the larger weight offset stay below 2^52.
    const nv = 82570;
    expect((((nv - 1) * nv + (nv - 2)) * nv + (nv - 3)) * 8 + 7 + 956158765).toBeLessThan(2 ** 52);
  });

  it('needs constants inside the soft-double range and tallies below 2^26', () => {
    expect(tripleFormulaOnDevice({ ...FORMULA, param: 0 }, 100)).toBe(true);
    expect(tripleFormulaOnDevice({ ...FORMULA, param: 1e-300 }, 100)).toBe(false);
    expect(tripleFormulaOnDevice({ ...FORMULA, multiplier: 2 ** 201 }, 100)).toBe(false);
    expect(tripleFormulaOnDevice({ ...FORMULA, numField: 2 ** 26 }, 100)).toBe(false);
  });

  it('fits record keys (tripleFirst + r·zCount + c)·8 + e of a whole request in 32 bits', () => {
    expect(tripleRecordKeysFit(2 ** 14 * 2 ** 15)).toBe(true);
    expect(tripleRecordKeysFit(2 ** 14 * (2 ** 15 + 1))).toBe(false);
  });

  it('turns thresholds into float32 bits with fround(v) > t ⟺ v ≥ 0 and bits(v) > above', () => {
    const random = seededRandom(7);
    for (let n = 0; n < 2000; n++) {
      const t = n % 3 === 0 ? Math.fround(random()) : random() * 2;
      const bits = tripleThresholdBits({ kind: 'single', value: t });
      if (bits?.kind !== 'single') throw new Error('single threshold expected');
      // Neighbouring float32s of t and of its bits decide the comparison.
      for (const v of [float32OfBits(bits.above), float32OfBits(bits.above + 1), Math.fround(t), float32OfBits(bits.above - 1)]) {
        const vBits = new Uint32Array(Float32Array.of(v).buffer)[0];
        expect(vBits > bits.above).toBe(v > t);
      }
    }
  });

  it('applies multi3 and single thresholds; declines 2-way forms and negative values', () => {
    expect(tripleThresholdBits({ kind: 'multi3', tLLL: 0.1, tLLH: 0.2, tLHH: 0.3, tHHH: 0.4, tLLLHHH: 0.5 })?.kind).toBe('multi3');
    expect(tripleThresholdBits({ kind: 'multi3', tLLL: 0.1, tLLH: -1, tLHH: 0.3, tHHH: 0.4, tLLLHHH: 0.5 })).toBeNull();
    expect(tripleThresholdBits({ kind: 'multi2', tLL: 0.1, tLH: 0.2, tHH: 0.3, tLLHH: 0.4 })).toBeNull();
    expect(tripleThresholdBits({ kind: 'single', value: -0.5 })).toBeNull();
    expect(tripleThresholdBits({ kind: 'none' })).toEqual({ kind: 'none' });
  });
});
