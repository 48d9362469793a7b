// A PLINK fileset with linkage that decays with distance, on two chromosomes with real-looking positions: each
// sample's two haplotypes copy their allele from the previous SNP except at rare recombinations.
import { writeFileSync } from 'node:fs';
import { mulberry32 } from '../../../src/core/seededRandom.js';
import { writePlinkFileset } from '../../helpers/plinkFileset.js';

/** Where the SNPs are: `chrom[s]`, `pos[s]`, ID `rs<s>`. */
export interface LdFixture {
  readonly numSnp: number;
  readonly numSample: number;
  readonly chrom: readonly string[];
  readonly pos: readonly number[];
}

/** snptally codes by allele-1 dosage (SPEC §1), and missing. */
const CODE_OF_DOSAGE = [0b00, 0b01, 0b11] as const;
const MISSING = 0b10;

/** Writes `<prefix>.bed/.bim/.fam`: SNPs [0, chromosomeOneSnps) on chromosome 1, the rest on 2. */
export function writeLdFixture(prefix: string, options: { numSnp: number; numSample: number; chromosomeOneSnps: number; seed: number }): LdFixture {
  const { numSnp, numSample, chromosomeOneSnps, seed } = options;
  const random = mulberry32(seed);
  const codes = new Uint8Array(numSnp * numSample);
  const haplotypes = new Uint8Array(2 * numSample);
  const chrom: string[] = [];
  const pos: number[] = [];
  let position = 0;
  let frequency = 0.5;
  for (let s = 0; s < numSnp; s++) {
    const newChromosome = s === 0 || s === chromosomeOneSnps;
    if (newChromosome) position = 50_000;
    position += 500 + Math.floor(random() * 4000);
    chrom.push(s < chromosomeOneSnps ? '1' : '2');
    pos.push(position);
    if (newChromosome || random() < 0.08) frequency = 0.15 + 0.7 * random();
    for (let h = 0; h < 2 * numSample; h++) {
      // Recombination: a fresh allele with probability 6% per SNP, so LD fades over some tens of SNPs.
      if (newChromosome || random() < 0.06) haplotypes[h] = random() < frequency ? 1 : 0;
    }
    for (let f = 0; f < numSample; f++) {
      codes[s * numSample + f] = random() < 0.01 ? MISSING : CODE_OF_DOSAGE[haplotypes[2 * f] + haplotypes[2 * f + 1]];
    }
  }
  writePlinkFileset(prefix, codes, numSnp, numSample);
  writeFileSync(`${prefix}.bim`, chrom.map((c, s) => `${c}\trs${s}\t0\t${pos[s]}\tA\tG\n`).join(''));
  return { numSnp, numSample, chrom, pos };
}
