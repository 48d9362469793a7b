// PLINK 1.9's `.ld` table (`--r2` without a matrix modifier), byte for byte: right-aligned columns CHR_A (6), BP_A
// (10), SNP_A (the SNP width below), the same for B, R2 (12) and optionally D or DP (12), a space before each column
// and at the end of each line (plink_ld.c, ld_regular_emitn).
import { canonicalChromosome } from './chromosomeCodes.js';
import { formatPlinkNumber } from './plinkNumberText.js';

/** The extra column PLINK adds with `--r2 d`, `dprime` or `dprime-signed`. */
export type LdExtraColumn = 'D' | 'DP';

/** One side of a pair as the table prints it. */
export interface LdLocus {
  readonly chromosome: string;
  readonly position: number;
  readonly id: string;
}

/**
 * PLINK's width of the SNP columns (plink_misc.c, calc_plink_maxsnp): it starts at 4 and becomes length + 2 for each
 * ID, in file order, longer than the width so far, over the variants PLINK has loaded.
 */
export function plinkSnpColumnWidth(ids: Iterable<string>): number {
  let width = 4;
  for (const id of ids) if (id.length > width) width = id.length + 2;
  return width;
}

/** The chromosome as PLINK prints it: human codes as numbers (`X` → `23`, `chr1` → `1`), others as written. */
export function plinkChromosomeText(name: string): string {
  return canonicalChromosome(name);
}

/** The header line. */
export function ldTableHeader(snpWidth: number, extra: LdExtraColumn | null): string {
  const extraText = extra === null ? '' : extra === 'D' ? '           D ' : '          DP ';
  return ` CHR_A         BP_A ${'SNP_A'.padStart(snpWidth)}  CHR_B         BP_B ${'SNP_B'.padStart(snpWidth)}           R2 ${extraText}\n`;
}

/** CHR columns by chromosome name: a table's loci share a few names, and each name's code is two regular expressions. */
const chromosomeColumns = new Map<string, string>();

/** One locus: chromosome, position and ID with their widths and separators (a line holds two, then the values). */
export function ldLocusText(locus: LdLocus, snpWidth: number): string {
  let chromosome = chromosomeColumns.get(locus.chromosome);
  if (chromosome === undefined) {
    chromosome = plinkChromosomeText(locus.chromosome).padStart(6);
    chromosomeColumns.set(locus.chromosome, chromosome);
  }
  return `${chromosome}   ${String(locus.position).padStart(10)} ${locus.id.padStart(snpWidth)} `;
}

/** One line: loci A and B, the value (`|r²|` as PLINK prints it) and the extra column's value when there is one. */
export function ldTableLine(a: LdLocus, b: LdLocus, snpWidth: number, value: number, extra: number | null): string {
  return ldTableLineOfLoci(ldLocusText(a, snpWidth), ldLocusText(b, snpWidth), value, extra);
}

/** One line from its two loci already as text (ldLocusText: tables of millions of pairs make each SNP's text once). */
export function ldTableLineOfLoci(aText: string, bText: string, value: number, extra: number | null): string {
  const extraText = extra === null ? '' : `${formatPlinkNumber(extra).padStart(12)} `;
  return `${aText}${bText}${formatPlinkNumber(value).padStart(12)} ${extraText}\n`;
}
