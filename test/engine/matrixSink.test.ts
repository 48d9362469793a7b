// The dense-matrix sink places panels of pairs at their places in the file: every shape (triangle with and without
// its diagonal, square, square0), format (bin4, bin, text) and panel kind (diagonal tiles, panels whose rows follow
// or precede their columns, pad rows and columns beyond the real vectors), from host values and from device words.
// The expected file is built independently: the full symmetric matrix, element by element in PLINK's row order.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PairBlock, VectorBlockView } from '../../src/analyses/index.js';
import { MatrixSink, matrixFileSpec } from '../../src/engine/finalize/matrixSink.js';
import { PanelValueCapture } from '../../src/engine/finalize/panelValues.js';
import { EntrySink } from '../../src/engine/finalize/entrySink.js';
import { formatPlinkNumber, type MatrixFormat, type MatrixShape } from '../../src/io/index.js';
import { allocatePlaneMatrix } from '../../src/mgemm/index.js';
import { LocalCommunicator } from '../../src/parallel/index.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-matrix-sink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NUM_VECTOR = 13;
const DIAGONAL = 0.5;

/** Pair values of the test: distinct, symmetric, some NaN (undefined), some zero. */
function pairValue(i: number, j: number): number {
  const lo = Math.min(i, j);
  const hi = Math.max(i, j);
  if ((lo + 2 * hi) % 11 === 0) return NaN;
  if ((lo * hi) % 7 === 3) return 0;
  return (lo + 1) / (hi + 3) + hi * 1e-7;
}

/** A block of `numVectors` vectors (`numReal` of them real) starting at global vector `vectorFirst`. */
function vectorBlock(blockIdx: number, vectorFirst: number, numVectors: number, numReal: number): VectorBlockView {
  return {
    blockIdx, vectorFirst, numVectorReal: numReal, planes: allocatePlaneMatrix(numVectors, 1, 1),
    sums: new Float64Array(numVectors), counts: new Float64Array(numVectors),
  };
}

/**
 * Panels covering every pair once, as a 3-block circulant plan gives them: each block's diagonal tile, and between
 * blocks one panel, its rows the later block for some pairs of blocks (the plan's wrap-around) and the earlier for
 * others. Blocks have 5 local vectors; the last has 3 real ones and 2 pads.
 */
function panels(): PairBlock[] {
  const blocks = [vectorBlock(0, 0, 5, 5), vectorBlock(1, 5, 5, 5), vectorBlock(2, 10, 5, 3)];
  const out: PairBlock[] = blocks.map((b) => ({ rows: b, rowFirst: 0, numRows: 5, cols: b, colFirst: 0, numCols: 5, strictUpper: true }));
  const whole = (rows: VectorBlockView, cols: VectorBlockView): PairBlock => ({ rows, rowFirst: 0, numRows: 5, cols, colFirst: 0, numCols: 5, strictUpper: false });
  // Rows before columns (0 × 1), rows after columns (2 × 0, 2 × 1 as two row ranges).
  out.push(whole(blocks[0], blocks[1]), whole(blocks[2], blocks[0]));
  out.push({ rows: blocks[2], rowFirst: 0, numRows: 2, cols: blocks[1], colFirst: 0, numCols: 5, strictUpper: false });
  out.push({ rows: blocks[2], rowFirst: 2, numRows: 3, cols: blocks[1], colFirst: 0, numCols: 5, strictUpper: false });
  return out;
}

/** The file the sink must write, built element by element from the full matrix. */
function expectedFile(shape: MatrixShape, format: MatrixFormat, diagonalInTriangle: boolean): Buffer {
  const rows: number[][] = [];
  for (let i = 0; i < NUM_VECTOR; i++) {
    const row: number[] = [];
    const end = shape === 'triangle' ? (diagonalInTriangle ? i + 1 : i) : NUM_VECTOR;
    for (let j = 0; j < end; j++) row.push(i === j ? DIAGONAL : shape === 'square0' && j > i ? 0 : pairValue(i, j));
    rows.push(row);
  }
  if (format === 'text') {
    return Buffer.from(rows.filter((r) => r.length > 0).map((r) => `${r.map(formatPlinkNumber).join('\t')}\n`).join(''), 'latin1');
  }
  const flat = rows.flat();
  const bytes = Buffer.alloc(flat.length * (format === 'bin4' ? 4 : 8));
  flat.forEach((v, k) => {
    // PLINK's NaN: the x86 default, sign bit set.
    if (format === 'bin4') {
      if (Number.isNaN(v)) bytes.writeUInt32LE(0xffc00000, 4 * k);
      else bytes.writeFloatLE(v, 4 * k);
    } else if (Number.isNaN(v)) {
      bytes.writeUInt32LE(0, 8 * k);
      bytes.writeUInt32LE(0xfff80000, 8 * k + 4);
    } else {
      bytes.writeDoubleLE(v, 8 * k);
    }
  });
  return bytes;
}

/** A panel's values as a device returns them: row-major over all its rows and columns, positive NaN, junk left of a diagonal. */
function deviceWords(block: PairBlock, format: MatrixFormat): Uint32Array {
  const perValue = format === 'bin4' ? 1 : 2;
  const words = new Uint32Array(block.numRows * block.numCols * perValue).fill(0x12345678);
  const view = new DataView(words.buffer);
  for (let r = 0; r < block.numRows; r++) {
    for (let c = 0; c < block.numCols; c++) {
      const i = block.rows.vectorFirst + block.rowFirst + r;
      const j = block.cols.vectorFirst + block.colFirst + c;
      if (block.strictUpper && j <= i) continue;
      const v = pairValue(i, j);
      const at = r * block.numCols + c;
      if (perValue === 1) view.setFloat32(4 * at, v, true);
      else view.setFloat64(8 * at, v, true);
    }
  }
  return words;
}

let fileIdx = 0;

async function writeMatrix(shape: MatrixShape, format: MatrixFormat, diagonalInTriangle: boolean, source: 'host' | 'device'): Promise<string> {
  const stub = join(dir, `m${fileIdx++}`);
  const spec = matrixFileSpec(stub, NUM_VECTOR, { shape, format }, { extension: 'test', diagonal: DIAGONAL, diagonalInTriangle });
  const sink = await MatrixSink.open(spec, DIAGONAL, new LocalCommunicator(), { writes: true });
  const entries = new EntrySink(NUM_VECTOR, 2, { kind: 'none' }, null);
  for (const block of panels()) {
    if (source === 'device') {
      sink.writeDevicePanel(block, { kind: sink.deviceValueKind, words: deviceWords(block, format) });
      continue;
    }
    // As host finalize gives them: one row of real columns at a time, right of the diagonal in a diagonal tile.
    const capture = new PanelValueCapture(entries, sink.panelTarget(block));
    const rowsReal = Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst);
    const colsReal = Math.min(block.numCols, block.cols.numVectorReal - block.colFirst);
    for (let r = 0; r < rowsReal; r++) {
      const i = block.rows.vectorFirst + block.rowFirst + r;
      const c0 = block.strictUpper ? r + 1 : 0;
      if (c0 >= colsReal) continue;
      const jFirst = block.cols.vectorFirst + block.colFirst + c0;
      const values = Float64Array.from({ length: colsReal - c0 }, (_, k) => pairValue(i, jFirst + k));
      capture.addPairEntryRow(i, 1, jFirst, 1, values.length, values);
    }
    sink.writeHostPanel(block);
  }
  sink.finish();
  const staged = sink.stage();
  expect(staged?.finalPath).toBe(spec.finalPath);
  renameSync(staged?.temporaryPath ?? '', spec.finalPath);
  return spec.finalPath;
}

describe('dense-matrix sink', () => {
  const shapes: readonly [MatrixShape, boolean][] = [['triangle', true], ['triangle', false], ['square', true], ['square0', true]];
  for (const [shape, diagonalInTriangle] of shapes) {
    for (const format of ['bin4', 'bin', 'text'] as const) {
      const name = `${shape}${shape === 'triangle' ? (diagonalInTriangle ? ' with diagonal' : ' without diagonal') : ''} ${format}`;
      it(`${name}: host and device panels give the expected file`, async () => {
        const expected = expectedFile(shape, format, diagonalInTriangle);
        for (const source of ['host', 'device'] as const) {
          const path = await writeMatrix(shape, format, diagonalInTriangle, source);
          expect(readFileSync(path).equals(expected), `${name} from ${source}`).toBe(true);
        }
      });
    }
  }

  it('discard removes the temporary file and leaves no matrix', async () => {
    const stub = join(dir, 'discarded');
    const spec = matrixFileSpec(stub, NUM_VECTOR, { shape: 'square', format: 'bin' }, { extension: 'ld', diagonal: 1, diagonalInTriangle: true });
    const sink = await MatrixSink.open(spec, 1, new LocalCommunicator(), { writes: true });
    sink.discard();
    expect(existsSync(spec.finalPath)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.startsWith('discarded'))).toEqual([]);
  });
});
