// INTERIM, until issue 5's PLINK reader lands: converts a PLINK 1 .bed (SNP-major) into CoMet's packed
// vector file with SPEC §1's code mapping, so r² tests and benchmarks can read PLINK's data today.
import { readFileSync, writeFileSync } from 'node:fs';

const BED_MAGIC = [0x6c, 0x1b, 0x01] as const;

/** SPEC §1: .bed 00 hom A1 → 11, 01 missing → 10, 10 het → 01, 11 hom A2 → 00. */
const BED_TO_SNPTALLY_CODE = [0b11, 0b10, 0b01, 0b00] as const;

/** Every .bed byte (4 codes) mapped code by code. */
const BYTE_MAP = Uint8Array.from({ length: 256 }, (_, byte) => {
  let out = 0;
  for (let s = 0; s < 8; s += 2) out |= BED_TO_SNPTALLY_CODE[(byte >> s) & 3] << s;
  return out;
});

/** Number of non-empty lines of a text file (.bim: SNPs, .fam: samples). */
export function countRecords(path: string): number {
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim().length > 0).length;
}

/** Sizes of a fileset `<prefix>.bed/.bim/.fam`: SNPs = vectors, samples = fields. */
export function plinkFilesetSize(prefix: string): { numVector: number; numField: number } {
  return { numVector: countRecords(`${prefix}.bim`), numField: countRecords(`${prefix}.fam`) };
}

/**
 * Writes `<packedPath>` from `<prefix>.bed`: same 4-per-byte LSB-first layout, magic stripped, codes
 * mapped, padding bits of each SNP's last byte cleared. Throws on a wrong magic or size.
 */
export function convertBedToPacked(prefix: string, packedPath: string): { numVector: number; numField: number } {
  const { numVector, numField } = plinkFilesetSize(prefix);
  const bed = readFileSync(`${prefix}.bed`);
  if (BED_MAGIC.some((b, t) => bed[t] !== b)) throw new Error(`${prefix}.bed is not a SNP-major PLINK 1 .bed (magic 6c 1b 01)`);
  const bytesPerVector = Math.ceil(numField / 4);
  if (bed.length !== BED_MAGIC.length + numVector * bytesPerVector) {
    throw new Error(`${prefix}.bed has ${bed.length} bytes, expected ${BED_MAGIC.length + numVector * bytesPerVector}`);
  }
  const packed = new Uint8Array(numVector * bytesPerVector);
  for (let t = 0; t < packed.length; t++) packed[t] = BYTE_MAP[bed[BED_MAGIC.length + t]];
  const tailFields = numField % 4;
  if (tailFields !== 0) {
    const keep = (1 << (2 * tailFields)) - 1;
    for (let v = 0; v < numVector; v++) packed[(v + 1) * bytesPerVector - 1] &= keep;
  }
  writeFileSync(packedPath, packed);
  return { numVector, numField };
}
