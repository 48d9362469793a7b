// A simulated pedigree as a PLINK fileset, for KING tests: unrelated founders (genotypes from per-SNP allele
// frequencies), their children made by transmitting one allele of each parent (full sibs), half sibs through a second
// mate, and some missing calls; the kinship class of every related pair is known (parent–child and full sibs 1/4,
// half sibs 1/8, unrelated 0).
import { writeFileSync } from 'node:fs';
import { mulberry32 } from '../../src/core/seededRandom.js';


/** One individual: IDs, parents (indices or -1), and its two alleles per SNP (1 = allele A1). */
interface Person {
  readonly fid: string;
  readonly iid: string;
  readonly father: number;
  readonly mother: number;
  readonly alleles: Uint8Array;
}

/** The pedigree written, and the expected kinship of its related pairs (sample indices i < j). */
export interface Pedigree {
  readonly numSample: number;
  readonly numSnp: number;
  /** `kinship.get(`${i},${j}`)`: 0.25 (parent–child, full sibs) or 0.125 (half sibs); absent: unrelated. */
  readonly kinship: ReadonlyMap<string, number>;
}

/** .bed 2-bit codes of allele-1 copies 0, 1, 2 and missing (01). */
const BED_CODE_OF_COPIES = [0b11, 0b10, 0b00];
const BED_MISSING = 0b01;

/**
 * Writes `<prefix>.bed/.bim/.fam`: `numFamilies` families of two founders and three children (full sibs), plus a
 * half sib of the children through the father and a second mother, and `numUnrelated` more founders. SNPs lie on
 * chromosomes 1–2 (one on chromosome X, which plink2's KING leaves out); `missingRate` of the calls are missing.
 */
export function writePedigreeFileset(prefix: string, sizes: { numFamilies: number; numUnrelated: number; numSnp: number; missingRate: number; seed: number }): Pedigree {
  const random = mulberry32(sizes.seed);
  const { numSnp } = sizes;
  const frequency = Float64Array.from({ length: numSnp }, () => 0.05 + 0.9 * random());
  const people: Person[] = [];
  const founder = (fid: string, iid: string): number => {
    const alleles = new Uint8Array(2 * numSnp);
    for (let s = 0; s < 2 * numSnp; s++) alleles[s] = random() < frequency[s >> 1] ? 1 : 0;
    return people.push({ fid, iid, father: -1, mother: -1, alleles }) - 1;
  };
  const child = (fid: string, iid: string, father: number, mother: number): number => {
    const alleles = new Uint8Array(2 * numSnp);
    for (let s = 0; s < numSnp; s++) {
      alleles[2 * s] = people[father].alleles[2 * s + (random() < 0.5 ? 0 : 1)];
      alleles[2 * s + 1] = people[mother].alleles[2 * s + (random() < 0.5 ? 0 : 1)];
    }
    return people.push({ fid, iid, father, mother, alleles }) - 1;
  };
  const kinship = new Map<string, number>();
  const relate = (a: number, b: number, value: number): void => { kinship.set(`${Math.min(a, b)},${Math.max(a, b)}`, value); };
  for (let f = 0; f < sizes.numFamilies; f++) {
    const fid = `fam${f}`;
    const father = founder(fid, 'father');
    const mother = founder(fid, 'mother');
    const children = [0, 1, 2].map((c) => child(fid, `child${c}`, father, mother));
    const secondMother = founder(fid, 'mother2');
    const halfSib = child(fid, 'halfsib', father, secondMother);
    for (const c of children) {
      relate(c, father, 0.25);
      relate(c, mother, 0.25);
      relate(c, halfSib, 0.125);
      for (const d of children) if (d !== c) relate(c, d, 0.25);
    }
    relate(halfSib, father, 0.25);
    relate(halfSib, secondMother, 0.25);
  }
  for (let u = 0; u < sizes.numUnrelated; u++) founder(`unrel${u}`, 'ind');
  const numSample = people.length;
  const bytesPerSnp = Math.ceil(numSample / 4);
  const bed = new Uint8Array(3 + numSnp * bytesPerSnp);
  bed.set([0x6c, 0x1b, 0x01]);
  for (let s = 0; s < numSnp; s++) {
    people.forEach((person, p) => {
      const copies = person.alleles[2 * s] + person.alleles[2 * s + 1];
      const code = random() < sizes.missingRate ? BED_MISSING : BED_CODE_OF_COPIES[copies];
      bed[3 + s * bytesPerSnp + (p >> 2)] |= code << (2 * (p & 3));
    });
  }
  writeFileSync(`${prefix}.bed`, bed);
  const chromosome = (s: number): string => (s === numSnp - 1 ? 'X' : s < numSnp / 2 ? '1' : '2');
  writeFileSync(`${prefix}.bim`, Array.from({ length: numSnp }, (_, s) => `${chromosome(s)}\trs${s}\t0\t${1000 * (s + 1)}\tA\tG\n`).join(''));
  const parentId = (index: number): string => (index < 0 ? '0' : people[index].iid);
  writeFileSync(`${prefix}.fam`, people.map((p) => `${p.fid}\t${p.iid}\t${parentId(p.father)}\t${parentId(p.mother)}\t0\t-9\n`).join(''));
  return { numSample, numSnp, kinship };
}
