// The seeded shuffle of `prepare --permute SEED`: a reproducible permutation of vector order.
//
// Why shuffle: with a threshold, strongly related SNPs are often neighbours in the file, so the ranks
// owning those blocks would write most of the output; a random order spreads it (CoMet paper's advice).
import { mulberry32 } from '../core/seededRandom.js';

/**
 * `order[p]` = the source index of the vector placed at position p: a Fisher–Yates shuffle of
 * 0..count−1 driven by mulberry32(seed). The same (count, seed) always gives the same order.
 */
export function seededVectorOrder(count: number, seed: number): Uint32Array {
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError('seed must be an integer in [0, 2^32)');
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const random = mulberry32(seed);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const held = order[i];
    order[i] = order[j];
    order[j] = held;
  }
  return order;
}
