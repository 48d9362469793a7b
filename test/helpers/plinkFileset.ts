// Writes snptally codes as a PLINK 1 fileset (.bed/.bim/.fam) and reads PLINK 1.9's --r2 square outputs.
import { readFileSync, writeFileSync } from 'node:fs';

/** snptally code → .bed code (SPEC §1, inverted): 11 → 00 hom A1, 10 → 01 missing, 01 → 10 het, 00 → 11 hom A2. */
const SNPTALLY_TO_BED_CODE = [0b11, 0b10, 0b01, 0b00] as const;

/** `<prefix>.bed/.bim/.fam` of `codes[v·numField + f]`: SNPs on chromosome 1, unrelated samples without sex. */
export function writePlinkFileset(prefix: string, codes: Uint8Array, numVector: number, numField: number): void {
  const bytesPerVector = Math.ceil(numField / 4);
  const bed = new Uint8Array(3 + numVector * bytesPerVector);
  bed.set([0x6c, 0x1b, 0x01]);
  for (let v = 0; v < numVector; v++) for (let f = 0; f < numField; f++) {
    bed[3 + v * bytesPerVector + (f >> 2)] |= SNPTALLY_TO_BED_CODE[codes[v * numField + f]] << ((f & 3) * 2);
  }
  writeFileSync(`${prefix}.bed`, bed);
  writeFileSync(`${prefix}.bim`, Array.from({ length: numVector }, (_, v) => `1\tsnp${v}\t0\t${v + 1}\tA\tG\n`).join(''));
  writeFileSync(`${prefix}.fam`, Array.from({ length: numField }, (_, f) => `fam${f}\tind${f}\t0\t0\t0\t-9\n`).join(''));
}

/** `--r2 square` text: numVector rows of numVector tab-separated values as PLINK printed them (`nan` included). */
export function readSquareText(path: string, numVector: number): string[][] {
  const rows = readFileSync(path, 'utf8').split('\n').filter((line) => line.length > 0).map((line) => line.split('\t'));
  if (rows.length !== numVector || rows.some((r) => r.length !== numVector)) throw new Error(`${path} is not a ${numVector}² matrix`);
  return rows;
}

/** `--r2 square bin` output: numVector² little-endian doubles, row-major. */
export function readSquareBinary(path: string, numVector: number): Float64Array {
  const bytes = readFileSync(path);
  if (bytes.length !== numVector * numVector * 8) throw new Error(`${path} has ${bytes.length} bytes, not ${numVector}² doubles`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float64Array.from({ length: numVector * numVector }, (_, t) => view.getFloat64(8 * t, true));
}
