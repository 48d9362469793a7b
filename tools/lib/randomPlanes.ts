// Random genotypes as an analysis's planes, for the finalize benchmarks (bench-pair-scores, bench-quad-finalize): each
// vector's samples drawn from a fixed linear congruential sequence, so every run times the same data.
import { allocatePlaneMatrix, type PlaneMatrix } from '../../src/mgemm/index.js';
import type { PlaneLayout } from '../../src/analyses/index.js';

/** Shape of the random planes; `missingRate` present: each call is missing (code 10) with that probability. */
export interface RandomPlanesOptions {
  readonly numVector: number;
  readonly numSamples: number;
  readonly missingRate?: number;
}

/**
 * Planes of `layout` for random genotypes (SPEC §1 codes 00, 01, 11 with allele frequency 0.4; 10 missing), each plane
 * within its field range.
 */
export function randomPlanes(layout: PlaneLayout, options: RandomPlanesOptions): PlaneMatrix {
  const { numVector, numSamples, missingRate } = options;
  const planes = allocatePlaneMatrix(numVector, layout.numPlanes, numSamples);
  let state = 12345;
  const uniform = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const ranges = layout.planeFieldRanges ?? null;
  for (let v = 0; v < numVector; v++) {
    for (let s = 0; s < numSamples; s++) {
      const genotype = (uniform() < 0.4 ? 1 : 0) + (uniform() < 0.4 ? 1 : 0);
      const code = missingRate !== undefined && uniform() < missingRate ? 0b10 : [0b00, 0b01, 0b11][genotype];
      const mask = layout.bitsOfCode[code];
      for (let p = 0; p < planes.numPlanes; p++) {
        const range = ranges?.[p] ?? null;
        if (((mask >> p) & 1) === 0 || (range !== null && (s < range.first || s >= range.end))) continue;
        planes.words[(v * planes.numPlanes + p) * planes.wordsPerPlane + (s >> 5)] |= 1 << (s & 31);
      }
    }
  }
  return planes;
}
