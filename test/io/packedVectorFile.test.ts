// Packed vector input file: size errors, and slab reads checked against a naive field-by-field decode.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  checkPackedVectorFile,
  packFieldValues,
  packedBytesPerVector,
  readPackedVectorSlab,
  writePackedVectorFile,
} from '../../src/io/index.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-packed-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Deterministic 2-bit field values that differ between neighbouring fields and vectors. */
function fieldValue(vectorIdx: number, fieldIdx: number): number {
  return (vectorIdx * 7 + fieldIdx * 3 + ((vectorIdx * fieldIdx) >> 2)) & 3;
}

/** Field f of vector v in a buffer packed with `bytesPerVector` bytes per vector, decoded the slow way. */
function naiveField(packed: Uint8Array, bytesPerVector: number, vectorIdx: number, fieldIdx: number): number {
  const byte = packed[vectorIdx * bytesPerVector + Math.floor(fieldIdx / 4)];
  return Math.floor(byte / 4 ** (fieldIdx % 4)) % 4;
}

function writeFixture(name: string, numVector: number, numField: number): string {
  const path = join(workDir, name);
  writePackedVectorFile(path, packFieldValues(numVector, numField, fieldValue), numVector, numField);
  return path;
}

function userErrorMessage(action: () => void): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error('expected a UserError');
}

describe('checkPackedVectorFile', () => {
  it('accepts a file of exactly numVector × ceil(numField/4) bytes', () => {
    const path = writeFixture('exact.bin', 5, 10);
    expect(packedBytesPerVector(10)).toBe(3);
    expect(() => checkPackedVectorFile(path, 5, 10)).not.toThrow();
  });

  it('names the file, both sizes and the incomplete vector record of a short file', () => {
    const path = join(workDir, 'short.bin');
    writeFileSync(path, new Uint8Array(3 * 3 + 2)); // vectors 0..2 complete, vector 3 has 2 of 3 bytes
    const message = userErrorMessage(() => checkPackedVectorFile(path, 5, 10));
    expect(message).toContain(path);
    expect(message).toContain('expected 15 bytes');
    expect(message).toContain('found 11');
    expect(message).toContain('vector record 3');
    expect(message).toContain('incomplete');
  });

  it('says which record is missing when a short file ends on a record boundary', () => {
    const path = join(workDir, 'short-boundary.bin');
    writeFileSync(path, new Uint8Array(6));
    expect(userErrorMessage(() => checkPackedVectorFile(path, 5, 10))).toContain('vector record 2');
  });

  it('rejects a long file with both sizes', () => {
    const path = join(workDir, 'long.bin');
    writeFileSync(path, new Uint8Array(16));
    const message = userErrorMessage(() => checkPackedVectorFile(path, 5, 10));
    expect(message).toContain('too long');
    expect(message).toContain('expected 15 bytes');
    expect(message).toContain('found 16');
  });

  it('reports a missing file as a UserError', () => {
    const message = userErrorMessage(() => checkPackedVectorFile(join(workDir, 'absent.bin'), 1, 1));
    expect(message).toContain('absent.bin');
  });
});

describe('readPackedVectorSlab', () => {
  const numVector = 23;
  const numField = 61; // not a multiple of 4: the last byte of each vector has pad bits
  const path = writeFixture('slab.bin', numVector, numField);

  function checkSlab(vectorFirst: number, vectorCount: number, fieldFirst: number, fieldCount: number): void {
    const slab = readPackedVectorSlab(path, numField, vectorFirst, vectorCount, fieldFirst, fieldCount);
    const outBytesPerVector = Math.ceil(fieldCount / 4);
    expect(slab.length).toBe(vectorCount * outBytesPerVector);
    for (let v = 0; v < vectorCount; v++) {
      for (let f = 0; f < 4 * outBytesPerVector; f++) {
        const expected = f < fieldCount ? fieldValue(vectorFirst + v, fieldFirst + f) : 0; // pad bits zero
        expect(naiveField(slab, outBytesPerVector, v, f), `v ${v} f ${f}`).toBe(expected);
      }
    }
  }

  it('reads every (field offset mod 4, field count mod 4) combination', () => {
    for (let fieldFirst = 0; fieldFirst < 8; fieldFirst++) {
      for (const fieldCount of [1, 2, 3, 4, 5, 6, 7, 13, numField - fieldFirst]) {
        checkSlab(2, 9, fieldFirst, fieldCount);
      }
    }
  });

  it('reads whole vectors, single vectors and the last vector', () => {
    checkSlab(0, numVector, 0, numField);
    checkSlab(numVector - 1, 1, 0, numField);
    checkSlab(11, 1, 57, 4);
  });

  it('reads thin slabs of a wide file one vector at a time and agrees with the naive decode', () => {
    const wideFields = 4003;
    const widePath = join(workDir, 'wide.bin');
    writePackedVectorFile(widePath, packFieldValues(7, wideFields, fieldValue), 7, wideFields);
    const slab = readPackedVectorSlab(widePath, wideFields, 1, 6, 1001, 37);
    for (let v = 0; v < 6; v++) {
      for (let f = 0; f < 37; f++) expect(naiveField(slab, 10, v, f)).toBe(fieldValue(1 + v, 1001 + f));
    }
  });

  it('clears garbage in the unused bits of each vector\'s last byte, whole vectors and slabs alike', () => {
    const garbled = packFieldValues(numVector, numField, fieldValue);
    const bytesPerVector = Math.ceil(numField / 4);
    // 61 fields: the last byte holds one field in its low 2 bits.
    for (let v = 0; v < numVector; v++) garbled[v * bytesPerVector + bytesPerVector - 1] |= 0b10101000;
    const garbledPath = join(workDir, 'garbled.bin');
    writePackedVectorFile(garbledPath, garbled, numVector, numField);
    const clean = readPackedVectorSlab(path, numField, 0, numVector, 0, numField);
    expect(readPackedVectorSlab(garbledPath, numField, 0, numVector, 0, numField)).toEqual(clean);
    expect(readPackedVectorSlab(garbledPath, numField, 4, 7, 0, numField)).toEqual(clean.subarray(4 * bytesPerVector, 11 * bytesPerVector));
    expect(readPackedVectorSlab(garbledPath, numField, 4, 7, 1, numField - 1)).toEqual(readPackedVectorSlab(path, numField, 4, 7, 1, numField - 1));
  });

  it('returns an empty slab for zero vectors or zero fields', () => {
    expect(readPackedVectorSlab(path, numField, 3, 0, 0, numField).length).toBe(0);
    expect(readPackedVectorSlab(path, numField, 3, 2, 5, 0).length).toBe(0);
  });

  it('rejects a field range past numField and a slab past the end of the file', () => {
    expect(() => readPackedVectorSlab(path, numField, 0, 1, 60, 2)).toThrow(RangeError);
    expect(userErrorMessage(() => readPackedVectorSlab(path, numField, numVector - 1, 2, 0, 4)))
      .toContain(path);
  });
});
