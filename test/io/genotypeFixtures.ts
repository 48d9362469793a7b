// Writes small PLINK filesets, VCFs and BGZF files for reader tests, from a matrix of allele-1 dosages.
import { writeFileSync } from 'node:fs';
import { crc32, deflateRawSync } from 'node:zlib';

/** Allele-1 copies (0, 1, 2) or null for a missing call: `dosages[snp][sample]`. */
export type DosageMatrix = ReadonlyArray<ReadonlyArray<number | null>>;

/** PLINK .bed 2-bit code of a dosage of A1: 00 hom A1, 10 het, 11 hom A2, 01 missing. */
function bedCode(dosage: number | null): number {
  if (dosage === null) return 0b01;
  return [0b11, 0b10, 0b00][dosage];
}

/** The .bed bytes (magic + SNP-major records) of `dosages`. */
export function bedBytes(dosages: DosageMatrix, numSample: number): Uint8Array {
  const bytesPerSnp = Math.ceil(numSample / 4);
  const bytes = new Uint8Array(3 + dosages.length * bytesPerSnp);
  bytes.set([0x6c, 0x1b, 0x01]);
  dosages.forEach((row, s) => row.forEach((dosage, i) => {
    bytes[3 + s * bytesPerSnp + (i >> 2)] |= bedCode(dosage) << ((i & 3) * 2);
  }));
  return bytes;
}

/** Writes `<prefix>.bed/.bim/.fam`; SNP s is `rs<s>` on chromosome 1 at 1000 + s, A1 `G`, A2 `A`. */
export function writePlinkFileset(prefix: string, dosages: DosageMatrix, numSample: number): void {
  writeFileSync(`${prefix}.bed`, bedBytes(dosages, numSample));
  writeFileSync(`${prefix}.bim`, dosages.map((_, s) => `1\trs${s}\t0\t${1000 + s}\tG\tA\n`).join(''));
  writeFileSync(`${prefix}.fam`, Array.from({ length: numSample }, (_, i) => `fam${i} ind${i} 0 0 1 -9\n`).join(''));
}

/** GT text of a dosage of ALT, alternating phased and unphased forms. */
function gtText(dosage: number | null, sampleIdx: number): string {
  const separator = sampleIdx % 2 === 0 ? '/' : '|';
  if (dosage === null) return sampleIdx % 3 === 0 ? '.' : `.${separator}.`;
  const alleles = [['0', '0'], [sampleIdx % 2 === 0 ? '0' : '1', sampleIdx % 2 === 0 ? '1' : '0'], ['1', '1']][dosage];
  return alleles.join(separator);
}

/** VCF text of `dosages` (ALT = allele 1), FORMAT GT:DP so the GT must be picked out. */
export function vcfText(dosages: DosageMatrix, numSample: number, extraLines: readonly string[] = []): string {
  const header = [
    '##fileformat=VCFv4.2',
    '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
    ['#CHROM', 'POS', 'ID', 'REF', 'ALT', 'QUAL', 'FILTER', 'INFO', 'FORMAT',
      ...Array.from({ length: numSample }, (_, i) => `s${i}`)].join('\t'),
  ];
  const body = dosages.map((row, s) => ['1', String(1000 + s), `rs${s}`, 'A', 'G', '.', 'PASS', '.', 'GT:DP',
    ...row.map((dosage, i) => `${gtText(dosage, i)}:7`)].join('\t'));
  return `${[...header, ...body, ...extraLines].join('\n')}\n`;
}

/**
 * BGZF (what bgzip writes): gzip members of at most 64 KiB input each, every header carrying the `BC`
 * extra subfield with the member size, then the 28-byte empty end-of-file member.
 */
export function bgzfBytes(text: string, blockBytes = 1000): Uint8Array {
  const input = Buffer.from(text, 'utf8');
  const members: Buffer[] = [];
  const member = (data: Buffer): Buffer => {
    const deflated = deflateRawSync(data);
    const header = Buffer.from([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43, 2, 0, 0, 0]);
    const total = header.length + deflated.length + 8;
    header.writeUInt16LE(total - 1, 16);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc32(data), 0);
    trailer.writeUInt32LE(data.length, 4);
    return Buffer.concat([header, deflated, trailer]);
  };
  for (let offset = 0; offset < input.length; offset += blockBytes) members.push(member(input.subarray(offset, offset + blockBytes)));
  members.push(member(Buffer.alloc(0)));
  return new Uint8Array(Buffer.concat(members));
}

/** Deterministic dosages with some missing calls: about 1 in `missingEvery` calls is missing. */
export function patternedDosages(numSnp: number, numSample: number, missingEvery: number): (number | null)[][] {
  return Array.from({ length: numSnp }, (_, s) => Array.from({ length: numSample }, (_, i) => {
    const mix = (s * 131 + i * 71 + ((s * i) % 13)) % 97;
    if (missingEvery > 0 && mix % missingEvery === 0) return null;
    return mix % 3;
  }));
}

/** SPEC §1 code of a dosage of allele 1, computed from the table (independent of src/io). */
export function specCode(dosage: number | null): number {
  if (dosage === null) return 0b10;
  return [0b00, 0b01, 0b11][dosage];
}
