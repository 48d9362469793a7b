// D′ and the haplotype r² of the PLINK front end against an independent estimate: the EM algorithm for two-locus
// haplotype frequencies (the double heterozygotes split by the current frequencies), run to convergence from a
// neutral start, which reaches the same maximum-likelihood frequencies as PLINK's cubic.
import { describe, expect, it } from 'vitest';
import { dosageR2, haplotypeLd } from '../../src/cli/plink/twoLocusLd.js';

/** EM haplotype frequencies [p11, p12, p21, p22] (1 = allele 1) of a 3×3 table counts[3a + b] (a, b copies of allele 1). */
function emHaplotypes(counts: readonly number[]): number[] {
  let p = [0.25, 0.25, 0.25, 0.25];
  for (let iteration = 0; iteration < 20000; iteration++) {
    const h = [0, 0, 0, 0];
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        const c = counts[3 * a + b];
        if (c === 0) continue;
        if (a === 1 && b === 1) {
          const cis = p[0] * p[3];
          const trans = p[1] * p[2];
          const share = cis / (cis + trans);
          h[0] += c * share; h[3] += c * share; h[1] += c * (1 - share); h[2] += c * (1 - share);
          continue;
        }
        // Each sample's two haplotypes: allele 1 of A on a of them, of B on b of them, unambiguous unless both are 1.
        const allelesA = a === 2 ? [1, 1] : a === 0 ? [2, 2] : [1, 2];
        const allelesB = b === 2 ? [1, 1] : b === 0 ? [2, 2] : [1, 2];
        for (let k = 0; k < 2; k++) h[(allelesA[k] - 1) * 2 + (allelesB[k] - 1)] += c;
      }
    }
    const total = h.reduce((x, y) => x + y, 0);
    p = h.map((x) => x / total);
  }
  return p;
}

function expectedDprime(counts: readonly number[]): { r2: number; dprime: number } {
  const [p11, p12, p21] = emHaplotypes(counts);
  const pA = p11 + p12;
  const pB = p11 + p21;
  const d = p11 - pA * pB;
  const dMax = d >= 0 ? Math.min(pA * (1 - pB), (1 - pA) * pB) : Math.min(pA * pB, (1 - pA) * (1 - pB));
  return { r2: (d * d) / (pA * (1 - pA) * pB * (1 - pB)), dprime: Math.abs(d) / dMax };
}

describe('haplotypeLd', () => {
  const tables = [
    [10, 3, 1, 4, 9, 2, 0, 5, 12],
    [30, 2, 0, 3, 6, 1, 0, 1, 2],
    [1, 4, 9, 3, 11, 4, 8, 5, 1],
    [0, 0, 5, 0, 10, 0, 5, 0, 0],
    [7, 7, 7, 7, 7, 7, 7, 7, 7],
  ];
  for (const counts of tables) {
    it(`matches EM's D′ and r² for ${counts.join(' ')}`, () => {
      const expected = expectedDprime(counts);
      const ld = haplotypeLd(counts, 'dprime');
      expect(Math.abs(ld.signedR2)).toBeCloseTo(expected.r2, 6);
      expect(ld.extra).toBeCloseTo(expected.dprime, 6);
      // Signed D′ differs from D′ only in sign, and the sign is that of r²'s.
      expect(haplotypeLd(counts, 'dprime-signed').extra).toBeCloseTo(Math.sign(ld.signedR2) * ld.extra, 12);
    });
  }

  it('is NaN for a monomorphic SNP, as PLINK prints nan', () => {
    expect(haplotypeLd([0, 0, 0, 0, 0, 0, 3, 4, 5], 'dprime').extra).toBeNaN();
    expect(dosageR2([0, 0, 0, 0, 0, 0, 3, 4, 5])).toBeNaN();
  });

  it('gives the dosage r² of the sums for dosageR2', () => {
    // x = a, y = b over the table [[2,0,0],[0,2,0],[0,0,2]]: perfectly correlated.
    expect(dosageR2([2, 0, 0, 0, 2, 0, 0, 0, 2])).toBe(1);
  });
});
