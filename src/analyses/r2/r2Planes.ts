// r²'s planes: the allele-1 dosage g = c1 ∈ {0, 1, 2} of a SNP, split into 0/1 planes whose plane products give
// the sums of a Pearson correlation (r2Values.ts).
import type { PlaneLayout } from '../index.js';
import { planeBitsOfCodes } from '../index.js';

/**
 * Planes of the r² layout: HOM (g = 2), NONZERO (g ≥ 1), HET (g = 1), PRESENT (m). g = HOM + NONZERO and,
 * as HOM ⇒ NONZERO, g² = 3·HOM + NONZERO.
 */
export const R2_PLANE = { hom: 0, nonzero: 1, het: 2, present: 3 } as const;

/**
 * r²'s planes in both modes. Sparse: `10` is missing (all planes 0, as CCC sparse). Dense: `10` is a het (g = 1,
 * as CCC dense) and every field is present.
 */
export function r2PlaneLayout(sparse: boolean): PlaneLayout {
  return {
    numPlanes: 4, countPlanes: [R2_PLANE.hom, R2_PLANE.nonzero], maskPlane: R2_PLANE.present,
    bitsOfCode: planeBitsOfCodes(sparse, (b1, b0, m) => (m ? [0, 0, 0, 0] : [b1 & b0, b1 | b0, b1 ^ b0, 1])),
  };
}
