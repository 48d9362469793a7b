// CoMet's linear-congruential randomizer (SPEC §4), shared by the synthetic problems and the checksum.

/** Modulus of the randomizer: results lie in [0, RANDOMIZE_MAX). */
export const RANDOMIZE_MAX = 714025;

/**
 * `(4096·i + 150889) mod 714025` as CoMet computes it on unsigned 64-bit integers.
 * Reducing `i` first gives the same residue and keeps every intermediate exact in a double;
 * it equals CoMet's value while 4096·i < 2^64 (i < 2^52), which holds for every index we form.
 */
export function randomize(i: number): number {
  return modMax(4096 * modMax(i) + 150889);
}

/**
 * `randomize(x + delta) − randomize(x)` modulo 714025, the same for every x (randomize is affine): stepping a weight
 * along a run of uids that grow by `delta` is then one addition.
 */
export function randomizeStep(delta: number): number {
  return modMax(4096 * modMax(delta));
}

/**
 * `i mod 714025` for integers below 2^53 without a floating-point `%` (which V8 runs as a slow fmod
 * once `i` leaves the int32 range): the quotient's rounding can be off by one, which the fix-up corrects.
 */
function modMax(i: number): number {
  if (i < 2147483648) return i % RANDOMIZE_MAX;
  const r = i - Math.floor(i / RANDOMIZE_MAX) * RANDOMIZE_MAX;
  return r < 0 ? r + RANDOMIZE_MAX : r >= RANDOMIZE_MAX ? r - RANDOMIZE_MAX : r;
}
