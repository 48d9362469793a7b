// PLINK 1.9's --distance matrix files (plink_calc.c distance_d_write), as chunks of bytes from a lower triangle of
// values (row i > j at i(i − 1)/2 + j): text (6 significant digits, tab-separated; a triangle without the diagonal,
// except .mibs's, which ends each row with it), float64 or float32 binary (a triangle never holds the diagonal; a
// square0 holds zeros from the diagonal on). PLINK's own quirk is kept: its square bin4 allele-count matrix repeats a
// row's last value below the diagonal on the diagonal.
import type { MatrixShape } from './matrixLayout.js';
import { MAX_NUMBER_TEXT_BYTES, writePlinkNumber } from './plinkNumberText.js';

/** How one distance matrix is laid out. */
export interface DistanceMatrixLayout {
  readonly numSample: number;
  readonly shape: MatrixShape;
  readonly encoding: 'text' | 'bin' | 'bin4';
  /** The matrix's value of a pair from the triangle's entry (e.g. 1 − IBS from the distance). */
  readonly valueOf: (entry: number) => number;
  /** The value of an individual against itself. */
  readonly diagonal: number;
  /** Whether a text triangle ends each row with the diagonal (PLINK's .mibs). */
  readonly diagonalInTextTriangle: boolean;
  /** Whether a square bin4 matrix puts float32 of the row's last value below the diagonal on it (PLINK's .dist.bin). */
  readonly previousValueOnBin4Diagonal: boolean;
}

const CHUNK_BYTES = 1 << 22;
const TAB = 0x09;
const NEWLINE = 0x0a;

/** The file's bytes, a chunk at a time (each chunk a fresh array). */
export function* distanceMatrixChunks(lower: Float64Array, layout: DistanceMatrixLayout): Generator<Uint8Array> {
  if (layout.encoding === 'text') yield* textChunks(lower, layout);
  else yield* binaryChunks(lower, layout);
}

/**
 * Row i as the file holds it: its length and its k-th value (the lower part, then for a square or square0 the
 * diagonal `diagonal` and the upper part, the transposed values or zeros).
 */
function rowOf(lower: Float64Array, layout: DistanceMatrixLayout, i: number, diagonal: number | null): { length: number; at: (k: number) => number } {
  const base = (i * (i - 1)) / 2;
  const { valueOf, shape } = layout;
  const length = diagonal === null ? i : layout.numSample;
  return {
    length,
    at: (k) => {
      if (k < i) return valueOf(lower[base + k]);
      if (k === i) return diagonal as number;
      return shape === 'square' ? valueOf(lower[(k * (k - 1)) / 2 + i]) : 0;
    },
  };
}

function* textChunks(lower: Float64Array, layout: DistanceMatrixLayout): Generator<Uint8Array> {
  let out = new Uint8Array(CHUNK_BYTES + MAX_NUMBER_TEXT_BYTES + 1);
  let at = 0;
  const triangle = layout.shape === 'triangle';
  for (let i = 0; i < layout.numSample; i++) {
    if (triangle && !layout.diagonalInTextTriangle && i === 0) continue;
    const row = triangle
      ? (layout.diagonalInTextTriangle ? { length: i + 1, at: rowOf(lower, layout, i, layout.diagonal).at } : rowOf(lower, layout, i, null))
      : rowOf(lower, layout, i, layout.diagonal);
    for (let k = 0; k < row.length; k++) {
      at = writePlinkNumber(row.at(k), out, at);
      out[at++] = k === row.length - 1 ? NEWLINE : TAB;
      if (at >= CHUNK_BYTES) {
        yield out.subarray(0, at);
        out = new Uint8Array(CHUNK_BYTES + MAX_NUMBER_TEXT_BYTES + 1);
        at = 0;
      }
    }
  }
  if (at > 0) yield out.subarray(0, at);
}

function* binaryChunks(lower: Float64Array, layout: DistanceMatrixLayout): Generator<Uint8Array> {
  const float32 = layout.encoding === 'bin4';
  const capacity = CHUNK_BYTES / 8;
  const fresh = (): Float64Array | Float32Array => (float32 ? new Float32Array(capacity) : new Float64Array(capacity));
  if (layout.shape === 'triangle') {
    // Row i holds entries i(i − 1)/2 … of the lower triangle, in order: the file is the triangle's values in order
    // (one tight loop; a row's accessor per value cost ~0.2 s at 4,000 samples).
    const { valueOf } = layout;
    for (let first = 0; first < lower.length; first += capacity) {
      const count = Math.min(capacity, lower.length - first);
      const values = fresh();
      for (let t = 0; t < count; t++) values[t] = valueOf(lower[first + t]);
      yield new Uint8Array(values.buffer, 0, count * values.BYTES_PER_ELEMENT);
    }
    return;
  }
  let values = fresh();
  let at = 0;
  for (let i = 0; i < layout.numSample; i++) {
    let diagonal: number | null = layout.shape === 'square0' ? 0 : layout.diagonal;
    if (layout.shape === 'square' && float32 && layout.previousValueOnBin4Diagonal && i > 0) {
      diagonal = layout.valueOf(lower[(i * (i - 1)) / 2 + i - 1]);
    }
    const row = rowOf(lower, layout, i, diagonal);
    for (let k = 0; k < row.length; k++) {
      values[at++] = row.at(k);
      if (at === capacity) {
        yield new Uint8Array(values.buffer);
        values = fresh();
        at = 0;
      }
    }
  }
  if (at > 0) yield new Uint8Array(values.buffer, 0, at * values.BYTES_PER_ELEMENT);
}
