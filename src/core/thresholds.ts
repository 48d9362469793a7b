// Which table entries pass the threshold (SPEC §7): one value for every entry, or CoMet's per-entry forms.
//
// The per-entry forms follow CoMet's `Thresholds` class (src/env.hh). Entries are named by their bits,
// L = 0 and H = 1, and values are the float32 metric values of the entry's own tuple.
//   2-way `tLL,tLH,tHH,tLLHH`: entry 00 passes if v00 > tLL, or if v00 + v11 > tLLHH with v00 > 0 and
//     v11 > 0; entries 01 and 10 pass if their value > tLH; entry 11 passes if v11 > tHH, or by the same
//     LL+HH rule.
//   3-way `tLLL,tLLH,tLHH,tHHH,tLLLHHH`: entries with one H compare with tLLH, two H with tLHH; 000 and 111
//     pass on their own threshold or if v000 + v111 > tLLLHHH with both positive.
// The LL+HH sum is taken in float32, like the values it adds.

/** A threshold of a run. */
export type Threshold =
  | { readonly kind: 'none' }
  | { readonly kind: 'single'; readonly value: number }
  | { readonly kind: 'multi2'; readonly tLL: number; readonly tLH: number; readonly tHH: number; readonly tLLHH: number }
  | {
      readonly kind: 'multi3'; readonly tLLL: number; readonly tLLH: number; readonly tLHH: number;
      readonly tHHH: number; readonly tLLLHHH: number;
    };

/** The single-value threshold `value`, or none for a negative value (as in CoMet). */
export function singleThreshold(value: number | null): Threshold {
  return value === null || value < 0 ? { kind: 'none' } : { kind: 'single', value };
}

/**
 * Sets `keep[e]` to 1 for each entry e < count of `values` that passes, else 0. `values` holds whole tuples
 * of 2^way entries, entry bits in order (e mod 2^way = 2a + b, or 4a + 2b + c).
 */
export function markPassingEntries(threshold: Threshold, values: Float64Array, count: number, keep: Uint8Array): void {
  switch (threshold.kind) {
    case 'none':
      keep.fill(1, 0, count);
      return;
    case 'single': {
      const t = threshold.value;
      for (let e = 0; e < count; e++) keep[e] = Math.fround(values[e]) > t ? 1 : 0;
      return;
    }
    case 'multi2': {
      const { tLL, tLH, tHH, tLLHH } = threshold;
      for (let at = 0; at < count; at += 4) {
        const v00 = Math.fround(values[at]), v01 = Math.fround(values[at + 1]);
        const v10 = Math.fround(values[at + 2]), v11 = Math.fround(values[at + 3]);
        const llhh = v00 > 0 && v11 > 0 && Math.fround(v00 + v11) > tLLHH;
        keep[at] = v00 > tLL || llhh ? 1 : 0;
        keep[at + 1] = v01 > tLH ? 1 : 0;
        keep[at + 2] = v10 > tLH ? 1 : 0;
        keep[at + 3] = v11 > tHH || llhh ? 1 : 0;
      }
      return;
    }
    case 'multi3': {
      const { tLLL, tLLH, tLHH, tHHH, tLLLHHH } = threshold;
      // Threshold of each entry by its number of H bits.
      const byOnes = [tLLL, tLLH, tLHH, tHHH];
      for (let at = 0; at < count; at += 8) {
        const v000 = Math.fround(values[at]), v111 = Math.fround(values[at + 7]);
        const lllhhh = v000 > 0 && v111 > 0 && Math.fround(v000 + v111) > tLLLHHH;
        for (let e = 0; e < 8; e++) {
          const ones = (e & 1) + ((e >> 1) & 1) + ((e >> 2) & 1);
          const own = Math.fround(values[at + e]) > byOnes[ones];
          keep[at + e] = own || ((e === 0 || e === 7) && lllhhh) ? 1 : 0;
        }
      }
      return;
    }
  }
}

/** Human-readable form for summaries: `none`, `0.5`, or the per-entry values. */
export function describeThreshold(threshold: Threshold): string {
  switch (threshold.kind) {
    case 'none': return 'none';
    case 'single': return String(threshold.value);
    case 'multi2': return `LL ${threshold.tLL} LH ${threshold.tLH} HH ${threshold.tHH} LL+HH ${threshold.tLLHH}`;
    case 'multi3':
      return `LLL ${threshold.tLLL} LLH ${threshold.tLLH} LHH ${threshold.tLHH} HHH ${threshold.tHHH} LLL+HHH ${threshold.tLLLHHH}`;
  }
}
