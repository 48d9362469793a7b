// mGEMM3 through a kernel set's 2-way GEMM: per j-slice, the pair-product planes (x_i AND y_j) are built
// in host memory (pairProductPlanes) and multiplied against z. For the CPU kernel sets, whose operands
// live in host memory anyway.

import type { PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest, PopcountGemmResult } from './contract.js';
import { pairProductPlanes } from './planeMatrix.js';
import { checkPopcountGemm3Request } from './requestChecks.js';

/**
 * Runs the slices in order with `run2`. The next slice's products are built while the current slice's
 * GEMM runs (on worker threads where the kernel set has them); at most two slices are in flight.
 */
export async function runTally3ByPairProducts(
  request: PopcountGemm3Request, run2: (request: PopcountGemmRequest) => Promise<PopcountGemmResult>,
): Promise<PopcountGemm3Result> {
  checkPopcountGemm3Request(request);
  const { x, y, z, planePairs, termGroups } = request;
  const results: PopcountGemm3Result = [];
  // Two product buffers, alternating: slice s reuses the one of slice s − 2, whose GEMM has been awaited.
  // (The CPU kernel sets keep no copies of their operands, so reusing the words is safe.)
  const maxWords = Math.max(0, ...request.slices.map((s) => s.xCount)) * planePairs.length * x.wordsPerPlane;
  const scratch = [0, 1].map(() => new Uint32Array(new SharedArrayBuffer(maxWords * 4)));
  let inFlight: Promise<PopcountGemmResult> | null = null;
  for (const [sliceIdx, slice] of request.slices.entries()) {
    const products = pairProductPlanes(x, slice.xFirst, slice.xCount, y, slice.yRow, planePairs, scratch[sliceIdx % 2]);
    const started = run2({
      a: products, aFirst: 0, aCount: slice.xCount, b: z, bFirst: slice.zFirst, bCount: slice.zCount, termGroups, strictUpper: false,
    });
    // The slice started last may fail while its predecessor is awaited; its error surfaces when it is awaited.
    started.catch(() => undefined);
    if (inFlight !== null) results.push(await inFlight);
    inFlight = started;
  }
  if (inFlight !== null) results.push(await inFlight);
  return results;
}
