// mGEMM4's operands: a PlaneMatrix of vector pairs, whose plane q of pair r is (plane p of u_r) AND (plane p' of v_r),
// so that the 2-way popcount GEMM of two such matrices gives Σ popc(x_i ∧ y_j ∧ z_k ∧ w_l) (seed 000's products of
// pair planes (i ∧ j) against pair planes (k ∧ l)), on any kernel set.
import type { PlaneMatrix, PlanePair, PlaneWordRange } from './contract.js';

/**
 * Pair planes of `vectors`: row r is the pair (first[r], second[r]) and its plane q is
 * `vectors[first[r]][planePairs[q][0]] AND vectors[second[r]][planePairs[q][1]]`, in shared memory (kernel threads).
 * Where `vectors` says in which words its planes may have bits (planeWordRanges: an epistasis class plane holds its
 * class's words only), a pair plane is computed within both its planes' words and carries that range, so that the
 * words outside, zero, are neither ANDed here nor swept by a kernel.
 */
export function pairPlaneMatrix(vectors: PlaneMatrix, first: Int32Array, second: Int32Array, planePairs: readonly PlanePair[]): PlaneMatrix {
  const { wordsPerPlane, numPlanes, words } = vectors;
  const numPairPlanes = planePairs.length;
  const numRows = first.length;
  const planeWordRanges = vectors.planeWordRanges ?? null;
  const ranges = planeWordRanges === null ? null : planePairs.map(([p, q]) => bothWords(planeWordRanges[p] ?? null, planeWordRanges[q] ?? null));
  const out = new Uint32Array(new SharedArrayBuffer(Math.max(1, numRows * numPairPlanes * wordsPerPlane) * 4));
  for (let r = 0; r < numRows; r++) {
    const uRow = first[r] * numPlanes;
    const vRow = second[r] * numPlanes;
    for (let q = 0; q < numPairPlanes; q++) {
      const u = (uRow + planePairs[q][0]) * wordsPerPlane;
      const v = (vRow + planePairs[q][1]) * wordsPerPlane;
      const at = (r * numPairPlanes + q) * wordsPerPlane;
      const range = ranges?.[q] ?? null;
      const wordEnd = range === null ? wordsPerPlane : range[1];
      for (let w = range === null ? 0 : range[0]; w < wordEnd; w++) out[at + w] = words[u + w] & words[v + w];
    }
  }
  const matrix: PlaneMatrix = { numVectors: numRows, numPlanes: numPairPlanes, wordsPerPlane, words: out };
  return ranges === null ? matrix : { ...matrix, planeWordRanges: ranges };
}

/** The words where both of two planes may have bits (null: a plane's words are all of them). */
function bothWords(a: PlaneWordRange | null, b: PlaneWordRange | null): PlaneWordRange | null {
  if (a === null) return b;
  if (b === null) return a;
  const wordFirst = Math.max(a[0], b[0]);
  return [wordFirst, Math.max(wordFirst, Math.min(a[1], b[1]))];
}
