// The 2-bit field codes of SPEC §1 and how each metric counts them.
import type { MetricKind } from './types.js';

/** Codes of a field `x = (b1 b0)`: 00 no copy of allele 1, 01 one copy, 11 two copies, 10 missing (sparse). */
export const CODE_MISSING = 0b10;

/** True when the code is missing in sparse mode. */
export function isMissing(code: number, sparse: boolean): boolean {
  return sparse && code === CODE_MISSING;
}

/**
 * c1(x): the 1-bits a metric counts in a field (0 for a missing field in sparse mode).
 * CCC (and r², whose allele-1 dosage this is) counts both bits; DUO only the low one. Without sparse mode `10` counts like `01` (SPEC §1).
 */
export function countOnes(code: number, metric: MetricKind, sparse: boolean): number {
  if (isMissing(code, sparse)) return 0;
  const c = code === CODE_MISSING ? 0b01 : code;
  return metric === 'duo' ? c & 1 : (c & 1) + (c >> 1);
}

/** c_a(x) for an entry bit a: c1 when a = 1, C − c1 when a = 0 (0 for a missing field). */
export function countBits(code: number, bit: 0 | 1, metric: MetricKind, sparse: boolean): number {
  if (isMissing(code, sparse)) return 0;
  const ones = countOnes(code, metric, sparse);
  return bit === 1 ? ones : (metric === 'duo' ? 1 : 2) - ones;
}

/** Number of set bits of a 32-bit word (SWAR). */
export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
