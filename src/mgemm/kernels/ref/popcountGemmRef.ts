// The reference popcount-GEMM: a plain triple loop, never optimized, the oracle of every other kernel set.

import {
  CPU_DEVICE, type PlaneMatrix, type PopcountGemm, type PopcountGemm3Request, type PopcountGemm3Result, type PopcountGemmRequest,
  type PopcountGemmResult, type PlaneWordRange, type Tally3Slice, type TermGroup, type VectorSums, type VectorSumsRequest, termWordRange,
} from '../../contract.js';
import { checkPopcountGemm3Request, checkPopcountGemmRequest, checkVectorSumsRequest } from '../../requestChecks.js';
import { popcount32 } from '../../../core/bitCodes.js';


/** Σ_w popcount(a-row plane AND b-row plane) over the words `[first, end)` of the term (the request's planeWordRanges). */
function planeAndPopcount(a: PlaneMatrix, aRow: number, aPlane: number, b: PlaneMatrix, bRow: number, bPlane: number, [first, end]: PlaneWordRange): number {
  const numWords = a.wordsPerPlane;
  const aStart = (aRow * a.numPlanes + aPlane) * numWords;
  const bStart = (bRow * b.numPlanes + bPlane) * numWords;
  let sum = 0;
  for (let w = first; w < end; w++) sum += popcount32(a.words[aStart + w] & b.words[bStart + w]);
  return sum;
}

/** out[r][c] = Σ_terms Σ_w popcount(A[aFirst + r][pa][w] AND B[bFirst + c][pb][w]), every entry. */
function referenceTally(request: PopcountGemmRequest, group: TermGroup): Uint32Array {
  const { a, b, aFirst, aCount, bFirst, bCount } = request;
  const out = new Uint32Array(aCount * bCount);
  for (let r = 0; r < aCount; r++) {
    for (let c = 0; c < bCount; c++) {
      let sum = 0;
      for (const [aPlane, bPlane] of group) sum += planeAndPopcount(a, aFirst + r, aPlane, b, bFirst + c, bPlane, termWordRange(request, aPlane, bPlane));
      out[r * bCount + c] = sum;
    }
  }
  return out;
}

/** Σ_w popcount(x-row plane AND y-row plane AND z-row plane), straight from the 3-way definition. */
function planeTripleAndPopcount(
  x: PlaneMatrix, xRow: number, xPlane: number, y: PlaneMatrix, yRow: number, yPlane: number, z: PlaneMatrix, zRow: number, zPlane: number,
): number {
  const numWords = x.wordsPerPlane;
  const xStart = (xRow * x.numPlanes + xPlane) * numWords;
  const yStart = (yRow * y.numPlanes + yPlane) * numWords;
  const zStart = (zRow * z.numPlanes + zPlane) * numWords;
  let sum = 0;
  for (let w = 0; w < numWords; w++) sum += popcount32(x.words[xStart + w] & y.words[yStart + w] & z.words[zStart + w]);
  return sum;
}

/** out[r][c] of one slice and group of a 3-way request (contract.ts), every entry. */
function referenceTally3(request: PopcountGemm3Request, slice: Tally3Slice, group: TermGroup): Uint32Array {
  const { x, y, z, planePairs } = request;
  const out = new Uint32Array(slice.xCount * slice.zCount);
  for (let r = 0; r < slice.xCount; r++) {
    for (let c = 0; c < slice.zCount; c++) {
      let sum = 0;
      for (const [pair, zPlane] of group) {
        const [xPlane, yPlane] = planePairs[pair];
        sum += planeTripleAndPopcount(x, slice.xFirst + r, xPlane, y, slice.yRow, yPlane, z, slice.zFirst + c, zPlane);
      }
      out[r * slice.zCount + c] = sum;
    }
  }
  return out;
}

/**
 * Σ c1 and present fields of every row (contract.ts VectorSumsRequest, its rows final), a popcount per word: the
 * CPU kernel sets' `vectorSums` (O(vectors × fields), against the GEMMs' O(vectors² × fields), so not worth threads).
 */
export function referenceVectorSums(request: VectorSumsRequest): VectorSums {
  checkVectorSumsRequest(request);
  const sums = new Float64Array(request.planes.numVectors);
  const counts = new Float64Array(request.planes.numVectors);
  addVectorSums(request, { sums, counts }, 0, request.planes.numVectors);
  return { sums, counts };
}

/** Rows `[rowFirst, rowEnd)` of referenceVectorSums into `out`. */
function addVectorSums(request: VectorSumsRequest, out: VectorSums, rowFirst: number, rowEnd: number): void {
  const { numPlanes, wordsPerPlane, words } = request.planes;
  const { sums, counts } = out;
  const planeSum = (row: number, plane: number): number => {
    const first = (row * numPlanes + plane) * wordsPerPlane;
    let total = 0;
    for (let w = first; w < first + wordsPerPlane; w++) total += popcount32(words[w]);
    return total;
  };
  for (let r = rowFirst; r < rowEnd; r++) {
    for (const p of request.countPlanes) sums[r] += planeSum(r, p);
    if (request.maskPlane !== null) counts[r] = planeSum(r, request.maskPlane);
  }
}

/** Rows summed at a time while a block is still being built (about 4 MiB of planes, as block workers claim them). */
const SUM_ROWS_BYTES = 4 << 20;

/** Options of hostVectorSums. */
export interface HostVectorSumsOptions {
  /** Sums rows `[rowFirst, rowEnd)` into `out` as referenceVectorSums does (the native addon's); absent: in JS. */
  readonly addRows?: (request: VectorSumsRequest, out: VectorSums, rowFirst: number, rowEnd: number) => void;
}

/**
 * Every CPU kernel set's `vectorSums`: referenceVectorSums, a piece of rows at a time as they become final
 * (VectorSumsRequest.rowsReady), so that only the last piece is summed after a block's build.
 */
export async function hostVectorSums(request: VectorSumsRequest, options: HostVectorSumsOptions = {}): Promise<VectorSums> {
  const { rowsReady } = request;
  const addRows = options.addRows ?? addVectorSums;
  if (rowsReady === undefined && options.addRows === undefined) return referenceVectorSums(request);
  checkVectorSumsRequest(request);
  const { numVectors, numPlanes, wordsPerPlane } = request.planes;
  const out: VectorSums = { sums: new Float64Array(numVectors), counts: new Float64Array(numVectors) };
  const rowsPerPiece = Math.max(1, Math.floor(SUM_ROWS_BYTES / (4 * numPlanes * wordsPerPlane)));
  for (let rowFirst = 0; rowFirst < numVectors; rowFirst += rowsPerPiece) {
    const rowEnd = Math.min(numVectors, rowFirst + rowsPerPiece);
    await rowsReady?.(rowEnd);
    addRows(request, out, rowFirst, rowEnd);
  }
  await rowsReady?.(numVectors);
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

  async run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    checkPopcountGemm3Request(request);
    return request.slices.map((slice) => request.termGroups.map((group) => referenceTally3(request, slice, group)));
  }

  vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    return hostVectorSums(request);
  }

  async close(): Promise<void> {}
}
