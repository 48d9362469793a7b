// The reference popcount-GEMM: a plain triple loop, never optimized, the oracle of every other kernel set.

import { CPU_DEVICE, type PlaneMatrix, type PopcountGemm, type PopcountGemmRequest, type PopcountGemmResult, type TermGroup } from '../../contract.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';

/** Number of set bits of a 32-bit word (SWAR). */
export function popcount32(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Σ_w popcount(a-row plane AND b-row plane) over one plane's words. */
function planeAndPopcount(a: PlaneMatrix, aRow: number, aPlane: number, b: PlaneMatrix, bRow: number, bPlane: number): number {
  const numWords = a.wordsPerPlane;
  const aStart = (aRow * a.numPlanes + aPlane) * numWords;
  const bStart = (bRow * b.numPlanes + bPlane) * numWords;
  let sum = 0;
  for (let w = 0; w < numWords; w++) sum += popcount32(a.words[aStart + w] & b.words[bStart + w]);
  return sum;
}

/** out[r][c] = Σ_terms Σ_w popcount(A[aFirst + r][pa][w] AND B[bFirst + c][pb][w]), every entry. */
function referenceTally(request: PopcountGemmRequest, group: TermGroup): Uint32Array {
  const { a, b, aFirst, aCount, bFirst, bCount } = request;
  const out = new Uint32Array(aCount * bCount);
  for (let r = 0; r < aCount; r++) {
    for (let c = 0; c < bCount; c++) {
      let sum = 0;
      for (const [aPlane, bPlane] of group) sum += planeAndPopcount(a, aFirst + r, aPlane, b, bFirst + c, bPlane);
      out[r * bCount + c] = sum;
    }
  }
  return out;
}

/** Kernel set `ref`: one thread, runs inline, computes every entry even when `strictUpper` allows skipping. */
export class PopcountGemmRef implements PopcountGemm {
  readonly name = 'ref';
  readonly numThreads = 1;
  readonly device = CPU_DEVICE;

  async run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    checkPopcountGemmRequest(request);
    return request.termGroups.map((group) => referenceTally(request, group));
  }

  async close(): Promise<void> {}
}
