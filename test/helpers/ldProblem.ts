// Deterministic genotype data with linkage: chains of SNPs each copied from the previous one with a few
// samples re-drawn, plus the corner cases of r² — monomorphic SNPs, an all-missing SNP, and a SNP that
// varies only where its neighbour is missing (no variance over their common samples).

/** snptally codes (SPEC §1): 00 hom allele 2, 01 het, 11 hom allele 1, 10 missing. */
const GENOTYPES = [0b00, 0b01, 0b11] as const;
const MISSING = 0b10;

/** Codes of `numVector` SNPs × `numField` samples, `codes[v·numField + f]`. */
export function ldProblemCodes(numVector: number, numField: number, seed: number, missingRate: number): Uint8Array {
  let s = seed >>> 0 || 1;
  const next = (): number => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
  const draw = (p: number): number => { const u = next(); return GENOTYPES[u < (1 - p) ** 2 ? 0 : u < 1 - p * p ? 1 : 2]; };
  const codes = new Uint8Array(numVector * numField);
  let p = 0.3;
  for (let v = 0; v < numVector; v++) {
    const row = codes.subarray(v * numField, (v + 1) * numField);
    const kind = v % 16;
    if (kind === 0) p = 0.05 + 0.9 * next(); // a new chain with a new allele frequency
    for (let f = 0; f < numField; f++) {
      const previous = v === 0 ? MISSING : codes[(v - 1) * numField + f];
      // Copy the previous SNP's genotype, except for 15% of samples and where it is missing.
      row[f] = kind === 0 || previous === MISSING || next() < 0.15 ? draw(p) : previous;
    }
    if (kind === 5) row.fill(0b11); // monomorphic
    if (kind === 9) row.fill(0b00);
    for (let f = 0; f < numField; f++) if (next() < missingRate) row[f] = MISSING;
    if (kind === 12) {
      // Varies only on samples missing in the previous SNP: no variance on their common samples.
      for (let f = 0; f < numField; f++) row[f] = codes[(v - 1) * numField + f] === MISSING ? GENOTYPES[f % 3] : 0b01;
    }
  }
  if (numVector > 13 && missingRate > 0) codes.fill(MISSING, 13 * numField, 14 * numField); // all missing
  return codes;
}
