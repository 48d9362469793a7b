// Packing of the wasm min-plus GEMM: rows of real values into the micro-panels the microkernels read
// (assembly/minplus/microkernels2.ts and microkernels3.ts say the layouts), rows past the last padded with zeros.
import type { RealValues } from '../../minPlusContract.js';

/** Which rows and fields of a real-valued matrix to pack, and where to. */
export interface PanelPacking {
  readonly source: RealValues;
  /** Source row of the first packed row. */
  readonly firstRow: number;
  /** Rows to pack; the last panel is padded with zero rows up to `rowsPerPanel`. */
  readonly numRows: number;
  readonly fieldFirst: number;
  readonly numFields: number;
  /** MR or NR of the microkernel. */
  readonly rowsPerPanel: number;
  /** Linear-memory value view and the index of the first packed value. */
  readonly dst: Float64Array | Float32Array;
  readonly dstIndex: number;
}

/** 2-way micro-panels: panel p, field f, row i at `dstIndex + (p·numFields + f)·R + i` (R = rowsPerPanel). */
export function packMicroPanels(p: PanelPacking): void {
  const { source, numFields, rowsPerPanel: R, dst } = p;
  const numPanels = Math.ceil(p.numRows / R);
  for (let panel = 0; panel < numPanels; panel++) {
    const panelIndex = p.dstIndex + panel * numFields * R;
    const rowsHere = Math.min(R, p.numRows - panel * R);
    if (rowsHere < R) dst.fill(0, panelIndex, panelIndex + numFields * R);
    // Row by row: one source stream at a time reads fastest here (the writes, R apart, stay in L1).
    for (let i = 0; i < rowsHere; i++) {
      const from = (p.firstRow + panel * R + i) * source.rowStride + p.fieldFirst;
      const values = source.values;
      let to = panelIndex + i;
      for (let f = 0; f < numFields; f++, to += R) dst[to] = values[from + f];
    }
  }
}

/**
 * 3-way micro-panels, each row's values with their mins against one other row (the 3-way y vector): panel p, field
 * f, row i at `dstIndex + (p·numFields + f)·2R + i`, min(row, other) at the same index + R. min is exact in either
 * precision (it picks one of its operands), so taking it here rather than in the microkernel changes no result.
 */
export function packMicroPanelsWithMins(p: PanelPacking, other: RealValues, otherRow: number): void {
  const { source, numFields, rowsPerPanel: R, dst } = p;
  const numPanels = Math.ceil(p.numRows / R);
  const otherFrom = otherRow * other.rowStride + p.fieldFirst;
  for (let panel = 0; panel < numPanels; panel++) {
    const panelIndex = p.dstIndex + panel * numFields * 2 * R;
    for (let i = 0; i < R; i++) {
      const row = panel * R + i;
      if (row >= p.numRows) {
        for (let f = 0; f < numFields; f++) dst[panelIndex + f * 2 * R + i] = dst[panelIndex + f * 2 * R + R + i] = 0;
        continue;
      }
      const from = (p.firstRow + row) * source.rowStride + p.fieldFirst;
      for (let f = 0; f < numFields; f++) {
        const value = source.values[from + f];
        dst[panelIndex + f * 2 * R + i] = value;
        dst[panelIndex + f * 2 * R + R + i] = Math.min(value, other.values[otherFrom + f]);
      }
    }
  }
}
