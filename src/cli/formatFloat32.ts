// Prints a float32 value with the fewest decimal digits that read back as the same float32.

/**
 * Shortest decimal text `s` with `Math.fround(Number(s)) === value`: `0.5`, `0.1` (not
 * 0.10000000149011612), `3.4028235e+38`. NaN and infinities print as JavaScript names them.
 */
export function formatFloat32(value: number): string {
  if (value === 0) return '0';
  if (!Number.isFinite(value)) return String(value);
  const single = Math.fround(value);
  const readsBack = (digits: number): boolean => Math.fround(Number(single.toPrecision(digits))) === single;
  // 9 significant digits always identify a float32. If d digits read back, d + 1 do too (the nearest
  // (d+1)-digit decimal is at least as close), so a binary search finds the fewest in ≤ 4 tries.
  let low = 1;
  let high = 9;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (readsBack(middle)) high = middle;
    else low = middle + 1;
  }
  return String(Number(single.toPrecision(high)));
}
