// The records-only bar of a top-N run on the device (mgemm/pairFinalize.ts RecordBar): its uniforms and the WGSL test
// that the 2-way and 3-way finalize programs apply to a passing entry's record, never to its checksum or counts.
import type { RecordBar } from '../../../pairFinalize.js';

/** Uniforms of the bar: its kind (0 none, 1 at least, 2 at most) and the float32 bits of its value. */
export const RECORD_BAR_UNIFORMS = ['recordBarKind', 'recordBarBits'] as const;

/** The bar's uniform values (a null bar: kind 0, every record kept). */
export function recordBarUniforms(bar: RecordBar | null): Record<(typeof RECORD_BAR_UNIFORMS)[number], number> {
  if (bar === null) return { recordBarKind: 0, recordBarBits: 0 };
  if (!Number.isInteger(bar.valueBits) || bar.valueBits < 0 || bar.valueBits >= 0x7f800000) {
    throw new RangeError(`record bar bits 0x${bar.valueBits.toString(16)} are not those of a finite non-negative float32`);
  }
  return { recordBarKind: bar.keep === 'atLeast' ? 1 : 2, recordBarBits: bar.valueBits };
}

/**
 * `keptByBar(bits)`: whether a record of float32 bits passes the bar (inclusive). A finite non-negative float32 orders
 * as its bits (−0 taken as +0); NaNs (and negatives, which the checksum's range check sends to the host anyway) lie
 * above +infinity's bits and never pass a bar, as NaN never ranks in a top N.
 */
export const RECORD_BAR_WGSL = `
fn keptByBar(bits: u32) -> bool {
  if (u.recordBarKind == 0u) { return true; }
  // −0 ranks as +0 (the host compares values, not bits).
  let b = select(bits, 0u, bits == 0x80000000u);
  if (b > 0x7f800000u) { return false; }
  return select(b <= u.recordBarBits, b >= u.recordBarBits, u.recordBarKind == 1u);
}`;
