// The dense-matrix sink: every pair's value into one matrix file (PLINK's square, square0 or triangle; text, bin or
// bin4), written by all ranks at once. Rank 0 creates the file at its full size under a temporary name and shares the
// name (communicator), every finalizing rank writes its panels at their places, and after the run's last barrier rank 0
// commits it (io/matrixFile.ts). It knows no analysis: the analysis's DenseMatrixSpec gives the file's extension and
// diagonal, and its values arrive a panel at a time — from host finalize (PanelValueCapture) or from the device.
//
// A panel of rows I × columns J lands in the lower triangle at (max(i, j), min(i, j)), and for `square` also at
// (min, max). Its values are put in the file's element type once (NaN as PLINK writes it), then, per file row, as
// contiguous runs: a panel whose rows follow its columns gives |I| runs of |J| values, one whose rows come first |J|
// runs of |I| values (the panel transposed in a staging buffer), the diagonal block's square tiles their rows with
// the diagonal value. Adjacent runs are written in one positioned write.
import type { DenseMatrixSpec, PairBlock } from '../../analyses/index.js';
import type { DenseValueKind, DenseValues } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import {
  LITTLE_ENDIAN_HOST, MatrixFileWriter, createMatrixFile, stageMatrixFile, discardMatrixFile, matrixElementBytes, matrixElementIndex, matrixFilePath,
  matrixTemporaryPath, PLINK_NAN_FLOAT32_BITS, PLINK_NAN_FLOAT64_HIGH_BITS, temporaryNameParts, type MatrixFileSpec, type MatrixFormat,
} from '../../io/index.js';
import type { MatrixOutputSpec } from '../run/jobSpec.js';
import type { PanelValueTarget } from './panelValues.js';

/** The file of a run's matrix: `<stub>.<extension>[.bin]` of `numVector` × `numVector`. */
export function matrixFileSpec(stub: string, numVector: number, output: MatrixOutputSpec, dense: DenseMatrixSpec): MatrixFileSpec {
  return {
    finalPath: matrixFilePath(stub, dense.extension, output.format),
    format: output.format,
    geometry: { numVector, shape: output.shape, diagonalInTriangle: dense.diagonalInTriangle },
  };
}

/** Buffers of the text conversion (plinkNumberText.ts: a chunk read, a chunk of text). */
const TEXT_CONVERSION_BYTES = 2 * (1 << 22);

/**
 * Host bytes of a rank's matrix sink with panels of `pairsPerPanel`: host finalize's shared values (float64), the
 * panel in the element type and the staging; with device values, the read-backs of two panels in flight (mapped and
 * copied); the text conversion's buffers on rank 0.
 */
export function matrixSinkHostBytes(pairsPerPanel: number, format: MatrixFormat, options: { readonly deviceValues: boolean }): number {
  const elementBytes = matrixElementBytes(format);
  const deviceBytes = options.deviceValues ? 2 * 2 * elementBytes * pairsPerPanel : 0;
  return (8 + 2 * elementBytes) * pairsPerPanel + deviceBytes + (format === 'text' ? TEXT_CONVERSION_BYTES : 0);
}

/** Device bytes of a panel's dense values (the finalize program's value buffer). */
export function matrixSinkDeviceBytes(pairsPerPanel: number, format: MatrixFormat): number {
  return matrixElementBytes(format) * pairsPerPanel;
}

/** The rows and columns of a panel that hold real vectors, and the row stride of its values. */
interface PanelPlace {
  readonly rowVector: number;
  readonly numRows: number;
  readonly colVector: number;
  readonly numCols: number;
  readonly stride: number;
  readonly strictUpper: boolean;
}

function placeOf(block: PairBlock): PanelPlace {
  return {
    rowVector: block.rows.vectorFirst + block.rowFirst,
    numRows: Math.max(0, Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst)),
    colVector: block.cols.vectorFirst + block.colFirst,
    numCols: Math.max(0, Math.min(block.numCols, block.cols.numVectorReal - block.colFirst)),
    stride: block.numCols,
    strictUpper: block.strictUpper,
  };
}

/** Side of the square blocks a transpose moves at a time (both blocks stay in the L1 cache). */
const TRANSPOSE_BLOCK = 32;

/**
 * out[(c · outStride + r)] = source[(r · sourceStride + c)] for r < numRows, c < numCols (elements of `wordsPerValue`
 * words), block by block so that reads and writes stay within a few cache lines.
 */
function transposeInto(
  source: Uint32Array, sourceStride: number, out: Uint32Array, outStride: number,
  shape: { readonly numRows: number; readonly numCols: number; readonly wordsPerValue: 1 | 2 },
): void {
  const { numRows, numCols, wordsPerValue: w } = shape;
  for (let r0 = 0; r0 < numRows; r0 += TRANSPOSE_BLOCK) {
    const r1 = Math.min(numRows, r0 + TRANSPOSE_BLOCK);
    for (let c0 = 0; c0 < numCols; c0 += TRANSPOSE_BLOCK) {
      const c1 = Math.min(numCols, c0 + TRANSPOSE_BLOCK);
      for (let c = c0; c < c1; c++) {
        let to = (c * outStride + r0) * w;
        let from = (r0 * sourceStride + c) * w;
        const step = sourceStride * w;
        for (let r = r0; r < r1; r++, to += w, from += step) {
          out[to] = source[from];
          if (w === 2) out[to + 1] = source[from + 1];
        }
      }
    }
  }
}

/** A rank's side of the matrix file: where its panels' values go. */
export class MatrixSink {
  /** u32 words per element: 1 (float32) or 2 (float64). */
  private readonly wordsPerValue: 1 | 2;
  private readonly diagonalWords: Uint32Array;
  /** Host finalize's panel values (shared with finalize workers), the panel in the file's element type, the staging. */
  private hostValues: Float64Array<ArrayBufferLike> = new Float64Array(0);
  private panelWords = new Uint32Array(0);
  private staging = new Uint32Array(0);
  /** The run of elements waiting to be written: staging element, file element, length. */
  private pending = { staged: 0, element: 0, length: 0 };

  private constructor(
    readonly spec: MatrixFileSpec,
    private readonly temporaryPath: string,
    private readonly writer: MatrixFileWriter | null,
    private readonly isRoot: boolean,
    diagonal: number,
  ) {
    this.wordsPerValue = matrixElementBytes(spec.format) === 4 ? 1 : 2;
    // The diagonal as an element (host order: the files are little-endian, as the hosts this runs on).
    this.diagonalWords = this.wordsPerValue === 1
      ? new Uint32Array(Float32Array.of(diagonal).buffer)
      : new Uint32Array(Float64Array.of(diagonal).buffer);
  }

  /**
   * Opens the matrix on every rank of `comm` (collective): rank 0 creates the file and shares its temporary name;
   * ranks that `writes` open it. Ranks on several hosts need a shared file system.
   */
  static async open(spec: MatrixFileSpec, diagonal: number, comm: Communicator, options: { readonly writes: boolean }): Promise<MatrixSink> {
    let parts = new Uint32Array(2);
    let failure: unknown = null;
    if (comm.rank === 0) {
      try {
        const made = temporaryNameParts(spec.finalPath);
        createMatrixFile(spec, matrixTemporaryPath(spec.finalPath, made));
        parts = Uint32Array.from(made);
      } catch (error) {
        failure = error;
      }
    }
    // [0, 0] says rank 0 could not create it.
    parts = await comm.broadcast(0, parts);
    if (failure !== null) throw failure;
    if (parts[0] === 0) throw new Error(`rank 0 could not create ${spec.finalPath}`);
    const temporaryPath = matrixTemporaryPath(spec.finalPath, [parts[0], parts[1]]);
    const writer = options.writes ? MatrixFileWriter.open(spec, temporaryPath) : null;
    return new MatrixSink(spec, temporaryPath, writer, comm.rank === 0, diagonal);
  }

  /** What the device returns for this matrix: float32 for bin4, float64 otherwise. */
  get deviceValueKind(): DenseValueKind {
    return this.wordsPerValue === 1 ? 'float32' : 'float64';
  }

  /** Where host finalize puts the values of `block` (reused from panel to panel: panels are finalized one at a time). */
  panelTarget(block: PairBlock): PanelValueTarget {
    const size = block.numRows * block.numCols;
    if (this.hostValues.length < size) this.hostValues = new Float64Array(new SharedArrayBuffer(8 * size));
    return { values: this.hostValues, rowVector: block.rows.vectorFirst + block.rowFirst, colVector: block.cols.vectorFirst + block.colFirst, numCols: block.numCols };
  }

  /** Writes the panel that host finalize put into its `panelTarget`. */
  writeHostPanel(block: PairBlock): void {
    const place = placeOf(block);
    const values = this.hostValues;
    if (this.wordsPerValue === 2) {
      // float64 elements are the values' own bytes (little-endian hosts): only NaNs take PLINK's bits, in place.
      if (!LITTLE_ENDIAN_HOST) throw new Error('dense matrices are written on little-endian hosts only');
      const words = new Uint32Array(values.buffer, values.byteOffset, 2 * values.length);
      for (let r = 0; r < place.numRows; r++) {
        const end = r * place.stride + place.numCols;
        for (let at = r * place.stride + this.firstPairCol(place, r); at < end; at++) {
          if (values[at] !== values[at]) {
            words[2 * at] = 0;
            words[2 * at + 1] = PLINK_NAN_FLOAT64_HIGH_BITS;
          }
        }
      }
      this.placePanel(place, words);
      return;
    }
    // float32 (bin4): each value rounded, NaN as PLINK's bits.
    const words = this.panelWordsFor(place);
    const floats = new Float32Array(words.buffer, words.byteOffset, words.length);
    for (let r = 0; r < place.numRows; r++) {
      const end = r * place.stride + place.numCols;
      for (let at = r * place.stride + this.firstPairCol(place, r); at < end; at++) {
        const v = values[at];
        if (Number.isNaN(v)) words[at] = PLINK_NAN_FLOAT32_BITS;
        else floats[at] = v;
      }
    }
    this.placePanel(place, words);
  }

  /** Writes a panel whose values came from the device (DenseValues of `this.deviceValueKind`). */
  writeDevicePanel(block: PairBlock, dense: DenseValues): void {
    if (dense.kind !== this.deviceValueKind) throw new Error(`matrix: ${dense.kind} values for a ${this.spec.format} matrix`);
    const place = placeOf(block);
    const words = this.panelWordsFor(place);
    const w = this.wordsPerValue;
    const source = dense.words;
    for (let r = 0; r < place.numRows; r++) {
      const end = r * place.stride + place.numCols;
      for (let at = r * place.stride + this.firstPairCol(place, r); at < end; at++) {
        if (w === 1) {
          const bits = source[at];
          words[at] = (bits & 0x7fffffff) > 0x7f800000 ? PLINK_NAN_FLOAT32_BITS : bits;
        } else {
          const high = source[2 * at + 1];
          const isNaN = (high & 0x7ff00000) === 0x7ff00000 && ((high & 0xfffff) !== 0 || source[2 * at] !== 0);
          words[2 * at] = isNaN ? 0 : source[2 * at];
          words[2 * at + 1] = isNaN ? PLINK_NAN_FLOAT64_HIGH_BITS : high;
        }
      }
    }
    this.placePanel(place, words);
  }

  /** Closes this rank's handle (every rank, before the barrier that precedes commit). */
  finish(): void {
    this.writer?.close();
  }

  /**
   * Rank 0, once every rank has finished: the matrix's final bytes under a temporary name (a text matrix is converted
   * here), which the run renames with its other files; null on other ranks.
   */
  stage(): { readonly finalPath: string; readonly temporaryPath: string } | null {
    if (!this.isRoot) return null;
    return { finalPath: this.spec.finalPath, temporaryPath: stageMatrixFile(this.spec, this.temporaryPath) };
  }

  /** A failed run: closes and removes the temporary file. */
  discard(): void {
    this.writer?.close();
    discardMatrixFile(this.temporaryPath);
  }

  /** The first column of panel row `r` that holds a pair (right of the diagonal in a diagonal tile). */
  private firstPairCol(place: PanelPlace, r: number): number {
    return place.strictUpper ? Math.max(0, place.rowVector + r + 1 - place.colVector) : 0;
  }

  private panelWordsFor(place: PanelPlace): Uint32Array {
    const size = Math.max(place.numRows, 1) * place.stride * this.wordsPerValue;
    if (this.panelWords.length < size) this.panelWords = new Uint32Array(size);
    if (!LITTLE_ENDIAN_HOST) throw new Error('dense matrices are written on little-endian hosts only');
    return this.panelWords;
  }

  private stagingFor(numElements: number): Uint32Array {
    const size = numElements * this.wordsPerValue;
    if (this.staging.length < size) this.staging = new Uint32Array(size);
    return this.staging;
  }

  /** The panel's elements (row-major, `place.stride` per row) at their places in the file. */
  private placePanel(place: PanelPlace, words: Uint32Array): void {
    if (this.writer === null || place.numRows === 0 || place.numCols === 0) return;
    const { rowVector: i0, numRows: numI, colVector: j0, numCols: numJ } = place;
    if (place.strictUpper) {
      if (i0 !== j0 || numI !== numJ) throw new Error(`matrix: a diagonal panel of rows ${i0}+${numI} and columns ${j0}+${numJ}`);
      this.placeDiagonalTile(place, words);
      return;
    }
    const rowsAfter = i0 >= j0 + numJ;
    if (!rowsAfter && i0 + numI > j0) throw new Error(`matrix: rows ${i0}+${numI} overlap columns ${j0}+${numJ} outside a diagonal panel`);
    const square = this.spec.geometry.shape === 'square';
    // The lower triangle (max, min) and, for square, the upper (min, max): file rows along the panel's rows or columns.
    if (rowsAfter || square) this.writeRuns(i0, numI, j0, numJ, words, place.stride);
    if (!rowsAfter || square) this.writeRuns(j0, numJ, i0, numI, this.transposed(place, words), numI);
  }

  /** File rows [rowFirst, +numFileRows), each the run of columns [colFirst, +numFileCols) from `source` (row stride `stride`). */
  private writeRuns(rowFirst: number, numFileRows: number, colFirst: number, numFileCols: number, source: Uint32Array, stride: number): void {
    const staging = source === this.staging ? source : this.stagingFor(numFileRows * numFileCols);
    const w = this.wordsPerValue;
    if (source !== staging) {
      for (let a = 0; a < numFileRows; a++) staging.set(source.subarray(a * stride * w, (a * stride + numFileCols) * w), a * numFileCols * w);
    }
    for (let a = 0; a < numFileRows; a++) this.addRun(a * numFileCols, matrixElementIndex(this.spec.geometry, rowFirst + a, colFirst), numFileCols);
    // Written before the staging buffer is filled again.
    this.flush();
  }

  /** The panel transposed into the staging buffer: numCols rows of numRows elements. */
  private transposed(place: PanelPlace, words: Uint32Array): Uint32Array {
    const { numRows, numCols, stride } = place;
    const out = this.stagingFor(numRows * numCols);
    transposeInto(words, stride, out, numRows, { numRows, numCols, wordsPerValue: this.wordsPerValue });
    return out;
  }

  /**
   * A diagonal block's square tile (rows = columns = [g0, g0 + m), pairs above its diagonal): rows of the symmetric
   * tile with the diagonal value, each as far as the shape goes (square: all; square0 and triangle: to the diagonal).
   */
  private placeDiagonalTile(place: PanelPlace, words: Uint32Array): void {
    const { rowVector: g0, numRows: m, stride } = place;
    const w = this.wordsPerValue;
    const geometry = this.spec.geometry;
    const tile = this.stagingFor(m * m);
    // The lower part is the upper part transposed (below the diagonal the transpose holds pairs, above it junk that the
    // row copies then overwrite), the upper part row by row, the diagonal last.
    transposeInto(words, stride, tile, m, { numRows: m, numCols: m, wordsPerValue: w });
    for (let a = 0; a < m; a++) tile.set(words.subarray((a * stride + a + 1) * w, (a * stride + m) * w), (a * m + a + 1) * w);
    for (let a = 0; a < m; a++) tile.set(this.diagonalWords, (a * m + a) * w);
    for (let a = 0; a < m; a++) {
      const length = geometry.shape === 'square' ? m : geometry.shape === 'square0' || geometry.diagonalInTriangle ? a + 1 : a;
      if (length > 0) this.addRun(a * m, matrixElementIndex(geometry, g0 + a, g0), length);
    }
    this.flush();
  }

  /** Queues a run of `length` staged elements for file element `element`, joined with the previous run when adjacent. */
  private addRun(staged: number, element: number, length: number): void {
    const p = this.pending;
    if (p.length > 0 && p.staged + p.length === staged && p.element + p.length === element) {
      p.length += length;
      return;
    }
    this.flush();
    this.pending = { staged, element, length };
  }

  private flush(): void {
    const { staged, element, length } = this.pending;
    if (length === 0 || this.writer === null) return;
    const bytesPerElement = 4 * this.wordsPerValue;
    const bytes = new Uint8Array(this.staging.buffer, this.staging.byteOffset + staged * bytesPerElement, length * bytesPerElement);
    this.writer.write(bytes, element * bytesPerElement);
    this.pending = { staged: 0, element: 0, length: 0 };
  }
}
