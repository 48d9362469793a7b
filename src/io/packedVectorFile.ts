// CoMet's packed vector input file (SPEC §1): size check, positioned slab reads, and a writer for tests and tools.
//
// Layout: each vector is ceil(numField/4) bytes, fields packed 4 per byte starting at the least significant
// bits (field f of a vector is bits 2(f mod 4)..2(f mod 4)+1 of byte floor(f/4)), vectors one after another.
import { openForReading } from './openForReading.js';
import { closeSync, readSync, statSync, writeFileSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';

/** Bytes one vector takes in a packed file: ceil(numField / 4). */
export function packedBytesPerVector(numField: number): number {
  return Math.ceil(numField / 4);
}

/**
 * Checks that `path` holds exactly `numVector` vectors of `numField` fields.
 * @throws UserError naming the file, the expected and actual sizes and, for a short file, the first
 *   vector record that is incomplete; or when the file cannot be read.
 */
export function checkPackedVectorFile(path: string, numVector: number, numField: number): void {
  const bytesPerVector = packedBytesPerVector(numField);
  const expectedBytes = numVector * bytesPerVector;
  const actualBytes = fileSize(path);
  const layout = `${numVector} vectors × ${bytesPerVector} bytes for ${numField} fields`;
  if (actualBytes < expectedBytes) {
    const incompleteVector = Math.floor(actualBytes / bytesPerVector);
    const partialBytes = actualBytes - incompleteVector * bytesPerVector;
    const which = partialBytes === 0
      ? `vector record ${incompleteVector} (0-based) and later ones are missing`
      : `vector record ${incompleteVector} (0-based) is incomplete (${partialBytes} of ${bytesPerVector} bytes)`;
    throw new UserError(
      `input file ${path} is too short: expected ${expectedBytes} bytes (${layout}), found ${actualBytes}; ${which}`);
  }
  if (actualBytes > expectedBytes) {
    throw new UserError(
      `input file ${path} is too long: expected ${expectedBytes} bytes (${layout}), found ${actualBytes} ` +
      `(${actualBytes - expectedBytes} extra); check --vectors and --fields`);
  }
}

/** A slab read costs one read per vector below this fill; above it, whole runs of vectors are read at once. */
const CONTIGUOUS_MIN_FILL = 1 / 8;
/** Upper bound on one contiguous read (bytes), so a slab of a huge file never needs a huge scratch buffer. */
const READ_CHUNK_BYTES = 4 << 20;

/**
 * Reads fields [fieldFirst, fieldFirst + fieldCount) of vectors [vectorFirst, vectorFirst + vectorCount)
 * with positioned reads (the file is never loaded whole) and re-packs them 4 fields per byte starting at
 * `fieldFirst`: the result holds ceil(fieldCount/4) bytes per vector, vectors one after another, and the
 * bits past the last field of each vector are zero.
 * @throws UserError when the file cannot be read or ends before the slab does.
 */
export function readPackedVectorSlab(
  path: string, numField: number,
  vectorFirst: number, vectorCount: number,
  fieldFirst: number, fieldCount: number,
): Uint8Array {
  checkSlabRange(numField, vectorFirst, vectorCount, fieldFirst, fieldCount);
  const outBytesPerVector = packedBytesPerVector(fieldCount);
  const slab = new Uint8Array(vectorCount * outBytesPerVector);
  if (vectorCount === 0 || fieldCount === 0) return slab;

  const bytesPerVector = packedBytesPerVector(numField);
  const spanFirstByte = fieldFirst >>> 2;
  const spanBytes = ((fieldFirst + fieldCount - 1) >>> 2) + 1 - spanFirstByte;
  const repack = slabRowRepacker(fieldFirst, fieldCount, spanBytes);

  const fd = openForReading(path, 'input file');
  try {
    // Why two strategies: a thin field slab (many field ranks) touches a small part of each vector, so one
    // read per vector moves far fewer bytes; a wide slab is cheaper as a few large reads that also carry
    // the gaps between vectors.
    if (fieldFirst === 0 && fieldCount === numField) {
      // Whole vectors: the file's bytes are the slab's; read in place, then clear the pad bits of each last byte.
      const lastByteMask = (1 << (2 * (fieldCount - 4 * (outBytesPerVector - 1)))) - 1;
      for (let first = 0; first < slab.length; first += READ_CHUNK_BYTES) {
        const length = Math.min(READ_CHUNK_BYTES, slab.length - first);
        readExactly(fd, path, slab.subarray(first, first + length), length, vectorFirst * bytesPerVector + first);
      }
      for (let last = outBytesPerVector - 1; last < slab.length; last += outBytesPerVector) slab[last] &= lastByteMask;
    } else if (spanBytes >= bytesPerVector * CONTIGUOUS_MIN_FILL) {
      const vectorsPerRead = Math.max(1, Math.floor(READ_CHUNK_BYTES / bytesPerVector));
      const chunk = new Uint8Array(Math.min(vectorsPerRead, vectorCount) * bytesPerVector);
      for (let chunkFirst = 0; chunkFirst < vectorCount; chunkFirst += vectorsPerRead) {
        const chunkVectors = Math.min(vectorsPerRead, vectorCount - chunkFirst);
        const readBytes = (chunkVectors - 1) * bytesPerVector + spanBytes;
        const position = (vectorFirst + chunkFirst) * bytesPerVector + spanFirstByte;
        readExactly(fd, path, chunk, readBytes, position);
        for (let v = 0; v < chunkVectors; v++) {
          repack(chunk, v * bytesPerVector, slab, (chunkFirst + v) * outBytesPerVector);
        }
      }
    } else {
      const span = new Uint8Array(spanBytes);
      for (let v = 0; v < vectorCount; v++) {
        readExactly(fd, path, span, spanBytes, (vectorFirst + v) * bytesPerVector + spanFirstByte);
        repack(span, 0, slab, v * outBytesPerVector);
      }
    }
  } finally {
    closeSync(fd);
  }
  return slab;
}

/**
 * readPackedVectorSlab's slab from packed vectors in memory (`packed`: vectors of ceil(numField/4) bytes, pad fields
 * zero). Whole vectors are `packed`'s own bytes (a view, no copy); a field slab is re-packed as from a file.
 */
export function packedVectorSlabOf(
  packed: Uint8Array, numField: number,
  vectorFirst: number, vectorCount: number,
  fieldFirst: number, fieldCount: number,
): Uint8Array {
  checkSlabRange(numField, vectorFirst, vectorCount, fieldFirst, fieldCount);
  const bytesPerVector = packedBytesPerVector(numField);
  if ((vectorFirst + vectorCount) * bytesPerVector > packed.length) throw new RangeError(`vectors [${vectorFirst}, ${vectorFirst + vectorCount}) exceed the packed rows`);
  if (fieldFirst === 0 && fieldCount === numField) return packed.subarray(vectorFirst * bytesPerVector, (vectorFirst + vectorCount) * bytesPerVector);
  const outBytesPerVector = packedBytesPerVector(fieldCount);
  const slab = new Uint8Array(vectorCount * outBytesPerVector);
  if (vectorCount === 0 || fieldCount === 0) return slab;
  const spanFirstByte = fieldFirst >>> 2;
  const spanBytes = ((fieldFirst + fieldCount - 1) >>> 2) + 1 - spanFirstByte;
  const repack = slabRowRepacker(fieldFirst, fieldCount, spanBytes);
  for (let v = 0; v < vectorCount; v++) repack(packed, (vectorFirst + v) * bytesPerVector + spanFirstByte, slab, v * outBytesPerVector);
  return slab;
}

/**
 * Writes an already packed buffer (numVector × ceil(numField/4) bytes) as a packed vector file.
 * @throws RangeError when the buffer does not have exactly that length.
 */
export function writePackedVectorFile(path: string, packed: Uint8Array, numVector: number, numField: number): void {
  const expectedBytes = numVector * packedBytesPerVector(numField);
  if (packed.length !== expectedBytes) {
    throw new RangeError(`packed buffer has ${packed.length} bytes, expected ${expectedBytes}`);
  }
  writeFileSync(path, packed);
}

/** Packs 2-bit field values `valueAt(v, f)` (0..3) into the packed file layout; pad bits are zero. */
export function packFieldValues(
  numVector: number, numField: number, valueAt: (vectorIdx: number, fieldIdx: number) => number,
): Uint8Array {
  const bytesPerVector = packedBytesPerVector(numField);
  const packed = new Uint8Array(numVector * bytesPerVector);
  for (let v = 0; v < numVector; v++) {
    for (let f = 0; f < numField; f++) {
      packed[v * bytesPerVector + (f >>> 2)] |= (valueAt(v, f) & 3) << ((f & 3) * 2);
    }
  }
  return packed;
}

/**
 * Returns a function that copies one vector's span of source bytes (starting at the byte holding
 * `fieldFirst`) into ceil(fieldCount/4) destination bytes, shifted so the slab starts at bit 0, with the
 * fields past the slab cleared.
 */
function slabRowRepacker(fieldFirst: number, fieldCount: number, spanBytes: number) {
  const outBytes = packedBytesPerVector(fieldCount);
  const shift = (fieldFirst & 3) * 2;
  const fieldsInLastByte = fieldCount - 4 * (outBytes - 1);
  const lastByteMask = (1 << (2 * fieldsInLastByte)) - 1;
  return (src: Uint8Array, srcOffset: number, dst: Uint8Array, dstOffset: number): void => {
    if (shift === 0) {
      dst.set(src.subarray(srcOffset, srcOffset + outBytes), dstOffset);
    } else {
      for (let o = 0; o < outBytes; o++) {
        const low = src[srcOffset + o] >>> shift;
        const high = o + 1 < spanBytes ? (src[srcOffset + o + 1] << (8 - shift)) & 0xff : 0;
        dst[dstOffset + o] = low | high;
      }
    }
    dst[dstOffset + outBytes - 1] &= lastByteMask;
  };
}

function checkSlabRange(
  numField: number, vectorFirst: number, vectorCount: number, fieldFirst: number, fieldCount: number,
): void {
  const counts = { numField, vectorFirst, vectorCount, fieldFirst, fieldCount };
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  }
  if (fieldFirst + fieldCount > numField) {
    throw new RangeError(`fields [${fieldFirst}, ${fieldFirst + fieldCount}) exceed numField ${numField}`);
  }
}

export function fileSize(path: string): number {
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw new UserError(`input file ${path} is not a regular file`);
    return stats.size;
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`cannot read input file ${path}: ${systemErrorText(error)}`);
  }
}

/** Fills buffer[0, length) from `position`, looping over short reads; EOF first is a UserError. */
export function readExactly(fd: number, path: string, buffer: Uint8Array, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const got = readSync(fd, buffer, done, length - done, position + done);
    if (got === 0) {
      throw new UserError(`input file ${path} ends at byte ${position + done}, before the requested vectors end`);
    }
    done += got;
  }
}
