// Plane bits of SPEC §1's four 2-bit codes, the table a PlaneLayout carries.
import { CODE_MISSING } from '../core/bitCodes.js';

/**
 * `bitsOfCode` of a layout: `planesOf(b1, b0, missing)` gives each plane's 0/1 bit for a code with high bit b1 and
 * low bit b0; `missing` is true for the code `10` in sparse mode.
 */
export function planeBitsOfCodes(sparse: boolean, planesOf: (b1: number, b0: number, missing: boolean) => number[]): number[] {
  return [0, 1, 2, 3].map((code) => {
    const missing = sparse && code === CODE_MISSING;
    return planesOf(code >> 1, code & 1, missing).reduce((bits, bit, p) => bits | (bit << p), 0);
  });
}
