// 3-way tasks of the CPU kernel set: a row panel of one j-slice. The thread that computes a panel builds
// its rows of the pair products (x_i AND y_j) itself, into a scratch array of its own, then runs the
// 2-way GemmTask of those rows against z — so with a worker pool the products are built in parallel and
// the calling thread (which finalizes) only posts tasks.

import type { PlaneMatrix, PlanePair, PopcountGemm3Request, PopcountGemmRequest, Tally3Slice, TermGroup } from '../../contract.js';
import { pairProductPlanes } from '../../planeMatrix.js';
import type { GemmTask, RowPanel } from './gemmTask.js';

/** Rows [panel.rowBegin, rowEnd) of one slice (slice-local rows); plain data, so it can be posted to a worker. */
export interface Tally3Task {
  readonly x: PlaneMatrix;
  readonly y: PlaneMatrix;
  readonly z: PlaneMatrix;
  readonly planePairs: readonly PlanePair[];
  readonly termGroups: readonly TermGroup[];
  readonly slice: Tally3Slice;
  readonly panel: RowPanel;
  /** The slice's outputs, xCount × zCount each; the task writes only its panel's rows. */
  readonly outputs: readonly Uint32Array[];
}

/** The slice as a 2-way request over its (not yet built) pair products: for planning row panels. */
export function sliceShapeRequest(request: PopcountGemm3Request, slice: Tally3Slice): PopcountGemmRequest {
  const a: PlaneMatrix = { numVectors: slice.xCount, numPlanes: request.planePairs.length, wordsPerPlane: request.x.wordsPerPlane, words: new Uint32Array(0) };
  return { a, aFirst: 0, aCount: slice.xCount, b: request.z, bFirst: slice.zFirst, bCount: slice.zCount, termGroups: request.termGroups, strictUpper: false };
}

/** A thread's product scratch, grown as needed (reused by its later tasks). */
export class ProductScratch {
  private words = new Uint32Array(0);

  /** At least `numWords` words, contents unspecified. */
  take(numWords: number): Uint32Array {
    if (this.words.length < numWords) this.words = new Uint32Array(Math.max(numWords, 2 * this.words.length));
    return this.words;
  }
}

/**
 * Computes a 3-way task with `runTask` (the thread's microkernel): the panel's products, then the GemmTask
 * of those rows, writing the panel's rows of the slice's outputs (views starting at the panel's first row).
 */
export function runTally3Task(task: Tally3Task, runTask: (task: GemmTask) => void, scratch: ProductScratch): void {
  const { slice, panel } = task;
  const numRows = panel.rowEnd - panel.rowBegin;
  const numWords = numRows * task.planePairs.length * task.x.wordsPerPlane;
  const products = pairProductPlanes(task.x, slice.xFirst + panel.rowBegin, numRows, task.y, slice.yRow, task.planePairs, scratch.take(numWords));
  runTask({
    request: {
      a: products, aFirst: 0, aCount: numRows, b: task.z, bFirst: slice.zFirst, bCount: slice.zCount, termGroups: task.termGroups, strictUpper: false,
    },
    panel: { rowBegin: 0, rowEnd: numRows, colBegin: panel.colBegin },
    outputs: task.outputs.map((out) => out.subarray(panel.rowBegin * slice.zCount, panel.rowEnd * slice.zCount)),
  });
}
