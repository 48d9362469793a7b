// Test fixtures for mgemm: seeded random bit planes built from per-field bits, and a naive tally oracle.

import { planeWordsFor, type PlaneMatrix, type PopcountGemmRequest } from '../../src/mgemm/index.js';
import { mulberry32 } from '../../src/core/seededRandom.js';

/** Small deterministic PRNG (mulberry32, the one `prepare --permute` uses) so failures reproduce. */
export const seededRandom: (seed: number) => () => number = mulberry32;

/** Per-field bits of each vector and plane: bits[vector][plane][field] ∈ {0, 1}. */
export type FieldBits = number[][][];

/** Random per-field bits, each set with probability `density`. */
export function randomFieldBits(random: () => number, numVectors: number, numPlanes: number, numField: number, density = 0.5): FieldBits {
  return Array.from({ length: numVectors }, () =>
    Array.from({ length: numPlanes }, () => Array.from({ length: numField }, () => (random() < density ? 1 : 0))),
  );
}

/** Packs per-field bits into the contract's layout; `shared` picks SharedArrayBuffer or ArrayBuffer. */
export function planesFromFieldBits(bits: FieldBits, numPlanes: number, numField: number, shared: boolean): PlaneMatrix {
  const wordsPerPlane = planeWordsFor(numField);
  const numBytes = bits.length * numPlanes * wordsPerPlane * 4;
  const words = new Uint32Array(shared ? new SharedArrayBuffer(numBytes) : new ArrayBuffer(numBytes));
  bits.forEach((planes, vector) =>
    planes.forEach((fieldBits, plane) =>
      fieldBits.forEach((bit, field) => {
        if (bit) words[(vector * numPlanes + plane) * wordsPerPlane + (field >>> 5)] |= 1 << (field & 31);
      }),
    ),
  );
  return { numVectors: bits.length, numPlanes, wordsPerPlane, words };
}

/** The tally straight from its definition, field by field: Σ_terms Σ_f aBits[pa][f] · bBits[pb][f]. */
export function naiveTallies(aBits: FieldBits, bBits: FieldBits, request: PopcountGemmRequest): Uint32Array[] {
  return request.termGroups.map((group) => {
    const out = new Uint32Array(request.aCount * request.bCount);
    for (let r = 0; r < request.aCount; r++) {
      for (let c = 0; c < request.bCount; c++) {
        let sum = 0;
        for (const [aPlane, bPlane] of group) {
          const aField = aBits[request.aFirst + r][aPlane];
          const bField = bBits[request.bFirst + c][bPlane];
          for (let f = 0; f < aField.length; f++) sum += aField[f] * bField[f];
        }
        out[r * request.bCount + c] = sum;
      }
    }
    return out;
  });
}

/** Entries of the request's outputs that a kernel must get right: all, or r < c under strictUpper. */
export function neededEntries(request: PopcountGemmRequest, outputs: readonly Uint32Array[]): number[][] {
  return outputs.map((out) => {
    const kept: number[] = [];
    for (let r = 0; r < request.aCount; r++) {
      for (let c = request.strictUpper ? r + 1 : 0; c < request.bCount; c++) kept.push(out[r * request.bCount + c]);
    }
    return kept;
  });
}

/**
 * Up to `limit` entries where two results of `request` differ, as readable strings, looking only at the
 * entries a kernel must get right (all, or r < c under strictUpper). Empty when they agree.
 */
export function neededMismatches(request: PopcountGemmRequest, expected: readonly Uint32Array[], actual: readonly Uint32Array[], limit = 5): string[] {
  const mismatches: string[] = [];
  if (actual.length !== expected.length) return [`${actual.length} outputs, expected ${expected.length}`];
  expected.forEach((want, g) => {
    if (actual[g].length !== want.length) mismatches.push(`group ${g}: length ${actual[g].length}, expected ${want.length}`);
    for (let r = 0; r < request.aCount && mismatches.length < limit; r++) {
      for (let c = request.strictUpper ? r + 1 : 0; c < request.bCount && mismatches.length < limit; c++) {
        const at = r * request.bCount + c;
        if (actual[g][at] !== want[at]) mismatches.push(`group ${g} [${r}][${c}]: ${actual[g][at]}, expected ${want[at]}`);
      }
    }
  });
  return mismatches;
}

/** Dense CCC 2-way terms: planes H (0) and L (1), all four products in one group. */
export const CCC_DENSE_TERMS = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 1],
] as const;
