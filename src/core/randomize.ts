// CoMet's linear-congruential randomizer (SPEC §4), shared by the synthetic problems and the checksum.

/** Modulus of the randomizer: results lie in [0, RANDOMIZE_MAX). */
export const RANDOMIZE_MAX = 714025;

/**
 * `(4096·i + 150889) mod 714025` as CoMet computes it on unsigned 64-bit integers.
 * Reducing `i` first gives the same residue and keeps every intermediate exact in a double;
 * it equals CoMet's value while 4096·i < 2^64 (i < 2^52), which holds for every index we form.
 */
export function randomize(i: number): number {
  return (4096 * (i % RANDOMIZE_MAX) + 150889) % RANDOMIZE_MAX;
}
