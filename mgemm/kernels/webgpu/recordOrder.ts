// Device finalize appends records (value bits, key) in whatever order its threads pass the threshold; the engine
// writes them in the CPU path's order, which is key order. A least-significant-digit radix sort on the key (keys of
// one request are distinct): linear in the records, where sorting them as 64-bit integers (BigUint64Array.sort)
// took 28.8 s of a 47 s 2-way run writing 358 M records on the H100 host.

/** Bits of one radix digit at most: 4096 counters stay in L1, and keys below 2^24 take two passes. */
const MAX_DIGIT_BITS = 12;

/**
 * The first `count` records of `words` (pairs of u32: value bits, key) ordered by key, in a new array; `words` is
 * left as it was.
 */
export function recordsInKeyOrder(words: Uint32Array, count: number): Uint32Array {
  let from = words.slice(0, 2 * count);
  let maxKey = 0;
  let sorted = true;
  for (let n = 0; n < count; n++) {
    const key = from[2 * n + 1];
    if (key < maxKey) sorted = false;
    else maxKey = key;
  }
  if (sorted) return from;
  const keyBits = 32 - Math.clz32(maxKey);
  const passes = Math.ceil(keyBits / MAX_DIGIT_BITS);
  const digitBits = Math.ceil(keyBits / passes);
  const mask = (1 << digitBits) - 1;
  const starts = new Uint32Array(1 << digitBits);
  let to = new Uint32Array(2 * count);
  for (let pass = 0; pass < passes; pass++) {
    const shift = pass * digitBits;
    starts.fill(0);
    for (let n = 0; n < count; n++) starts[(from[2 * n + 1] >>> shift) & mask]++;
    let first = 0;
    for (let d = 0; d < starts.length; d++) {
      const size = starts[d];
      starts[d] = first;
      first += size;
    }
    // Stable: records of one digit keep the order of the previous pass.
    for (let n = 0; n < count; n++) {
      const key = from[2 * n + 1];
      const at = 2 * starts[(key >>> shift) & mask]++;
      to[at] = from[2 * n];
      to[at + 1] = key;
    }
    [from, to] = [to, from];
  }
  return from;
}
