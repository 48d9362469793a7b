// A seeded uniform generator for synthetic data, permutations and simulations: the same numbers for a seed on every
// platform, so a data set or an order can be made again from its seed.

/** mulberry32: a small, well-mixed 32-bit generator; uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
