// mGEMM4's operands: a PlaneMatrix of vector pairs, whose plane q of pair r is (plane p of u_r) AND (plane p' of v_r),
// so that the 2-way popcount GEMM of two such matrices gives Σ popc(x_i ∧ y_j ∧ z_k ∧ w_l) (seed 000's products of
// pair planes (i ∧ j) against pair planes (k ∧ l)), on any kernel set.
import type { PlaneMatrix, PlanePair } from './contract.js';

/**
 * Pair planes of `vectors`: row r is the pair (first[r], second[r]) and its plane q is
 * `vectors[first[r]][planePairs[q][0]] AND vectors[second[r]][planePairs[q][1]]`, in shared memory (kernel threads).
 */
export function pairPlaneMatrix(vectors: PlaneMatrix, first: Int32Array, second: Int32Array, planePairs: readonly PlanePair[]): PlaneMatrix {
  const { wordsPerPlane, numPlanes, words } = vectors;
  const numPairPlanes = planePairs.length;
  const numRows = first.length;
  const out = new Uint32Array(new SharedArrayBuffer(Math.max(1, numRows * numPairPlanes * wordsPerPlane) * 4));
  for (let r = 0; r < numRows; r++) {
    const uRow = first[r] * numPlanes;
    const vRow = second[r] * numPlanes;
    for (let q = 0; q < numPairPlanes; q++) {
      const u = (uRow + planePairs[q][0]) * wordsPerPlane;
      const v = (vRow + planePairs[q][1]) * wordsPerPlane;
      const at = (r * numPairPlanes + q) * wordsPerPlane;
      for (let w = 0; w < wordsPerPlane; w++) out[at + w] = words[u + w] & words[v + w];
    }
  }
  return { numVectors: numRows, numPlanes: numPairPlanes, wordsPerPlane, words: out };
}
