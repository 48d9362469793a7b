// Packing: copies term-expanded A or B rows into wasm memory in the microkernel's interleaved layout.

import type { PlaneMatrix } from '../../contract.js';

/**
 * One operand of a term group as packing sees it. The term-expanded K dimension of a row is the
 * concatenation, over terms t, of the row's plane `termPlanes[t]`: packed word k is word
 * `k % wordsPerPlane` of plane `termPlanes[floor(k / wordsPerPlane)]`.
 */
export interface TermOperand {
  readonly matrix: PlaneMatrix;
  readonly termPlanes: readonly number[];
}

/** What to pack and where (u32 indices into `dst`, the instance's linear memory). */
export interface PanelPackJob {
  readonly operand: TermOperand;
  /** Matrix row of the first packed row. */
  readonly firstRow: number;
  /** Rows copied from the matrix. */
  readonly numRows: number;
  /** First term-expanded K word (a multiple of 4). */
  readonly kBegin: number;
  /** K words packed (a multiple of 4). */
  readonly kcWords: number;
  /** Rows per micro-panel: MR for A, NR for B. */
  readonly rowsPerPanel: number;
  readonly dst: Uint32Array;
  readonly dstWord: number;
}

/**
 * Writes micro-panels of `rowsPerPanel` rows, each `kcWords` long: in a micro-panel, 64-bit step s of
 * lane i is the u32 pair at `2 (s · rowsPerPanel + i)`, so the microkernel reads one contiguous stream
 * per operand with immediate offsets. Term boundaries fall on 128-bit lanes (wordsPerPlane is a
 * multiple of 4), so no 64-bit step straddles two planes.
 * The lanes of a last, partial micro-panel past `numRows` keep whatever they held: they only feed C
 * entries in the padding of the C block, which are never copied out.
 */
export function packMicroPanels(job: PanelPackJob): void {
  const { operand, firstRow, numRows, kBegin, kcWords, rowsPerPanel, dst, dstWord } = job;
  const { matrix, termPlanes } = operand;
  const { words: src, numPlanes, wordsPerPlane } = matrix;
  const panelWords = rowsPerPanel * kcWords;
  const stepStride = 2 * rowsPerPanel;
  const kEnd = kBegin + kcWords;
  for (let row = 0; row < numRows; row++) {
    const lane = row % rowsPerPanel;
    let dstPos = dstWord + ((row - lane) / rowsPerPanel) * panelWords + 2 * lane;
    for (let k = kBegin; k < kEnd; ) {
      const term = Math.floor(k / wordsPerPlane);
      const segmentEnd = Math.min(kEnd, (term + 1) * wordsPerPlane);
      let srcPos = ((firstRow + row) * numPlanes + termPlanes[term]) * wordsPerPlane + (k - term * wordsPerPlane);
      for (; k < segmentEnd; k += 2) {
        dst[dstPos] = src[srcPos];
        dst[dstPos + 1] = src[srcPos + 1];
        srcPos += 2;
        dstPos += stepStride;
      }
    }
  }
}
