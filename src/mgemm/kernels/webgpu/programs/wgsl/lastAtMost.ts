// WGSL of a binary search over an ascending table in a buffer: which entry a thread's row or tile belongs to, where
// one dispatch covers several parts (stacked pair products, finalize rectangles) listed by their first row or tile.

/**
 * `fn name(key: u32) -> u32`: the index of the last of `count` entries (ascending, entry 0 at most every key asked)
 * whose value is at most `key`; `valueAt(i)` is the WGSL expression of entry i's value.
 */
export function lastAtMostWgsl(name: string, count: string, valueAt: (i: string) => string): string {
  return `
fn ${name}(key: u32) -> u32 {
  var lo = 0u;
  var hi = ${count} - 1u;
  while (lo < hi) {
    let mid = (lo + hi + 1u) / 2u;
    if (${valueAt('mid')} <= key) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}`;
}
