// CoMet's raw real-valued input file (SPEC §8): little-endian doubles or floats, no header, element (v, f) at
// `size·(f + nf·v)`. Size check, and row reads that refuse negative, NaN and infinite values by file, vector, field.
import { closeSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import type { RealPrecision } from '../core/realProblems.js';
import { openForReading } from './openForReading.js';
import { fileSize, readExactly } from './packedVectorFile.js';

/** Bytes of one value of a precision. */
export function realValueBytes(precision: RealPrecision): 8 | 4 {
  return precision === 'double' ? 8 : 4;
}

/**
 * Checks that `path` holds exactly `numVector` × `numField` values of `precision`.
 * @throws UserError naming the file, the expected and actual sizes.
 */
export function checkRealVectorFile(path: string, numVector: number, numField: number, precision: RealPrecision): void {
  const expected = numVector * numField * realValueBytes(precision);
  const actual = fileSize(path);
  if (actual !== expected) {
    throw new UserError(
      `input file ${path} has ${actual} bytes, not the ${expected} of ${numVector} vectors × ${numField} fields of ` +
      `${precision}-precision values (${realValueBytes(precision)} bytes each); check --vectors, --fields and --precision`);
  }
}

/** Where rows read from a real-valued file go: row r's first value at `out[at + r·rowStride]`. */
export interface RealRowTarget {
  readonly out: Float64Array | Float32Array;
  readonly at: number;
  readonly rowStride: number;
}

/**
 * Reads fields [fieldFirst, fieldFirst + fieldCount) of vectors [vectorFirst, vectorFirst + vectorCount) of a raw
 * real-valued file into `target`, one positioned read per vector.
 * @throws UserError when the file cannot be read, or a value is negative, NaN or infinite (naming vector and field).
 */
export function readRealVectorRows(
  path: string, precision: RealPrecision, numField: number, vectorFirst: number, vectorCount: number,
  fieldFirst: number, fieldCount: number, target: RealRowTarget,
): void {
  const size = realValueBytes(precision);
  const bytes = new Uint8Array(fieldCount * size);
  const view = new DataView(bytes.buffer);
  const fd = openForReading(path, 'input file');
  try {
    for (let v = 0; v < vectorCount; v++) {
      readExactly(fd, path, bytes, bytes.length, ((vectorFirst + v) * numField + fieldFirst) * size);
      const rowAt = target.at + v * target.rowStride;
      for (let c = 0; c < fieldCount; c++) {
        const value = size === 8 ? view.getFloat64(8 * c, true) : view.getFloat32(4 * c, true);
        if (!(value >= 0 && value < Infinity)) {
          throw new UserError(
            `input file ${path}: vector ${vectorFirst + v}, field ${fieldFirst + c} (0-based) is ${value}; values must be finite and non-negative`);
        }
        target.out[rowAt + c] = value;
      }
    }
  } finally {
    closeSync(fd);
  }
}
