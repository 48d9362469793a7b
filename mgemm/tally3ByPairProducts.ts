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
  let inFlight: Promise<PopcountGemmResult> | null = null;
  for (const slice of request.slices) {
    const products = pairProductPlanes(x, slice.xFirst, slice.xCount, y, slice.yRow, planePairs);
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
