// PLINK 1 binary filesets (.bed/.bim/.fam, SNP-major): checks and streams SNP rows as SPEC-coded vectors.
//
// .bed: magic 6c 1b 01, then one record of ceil(numSample/4) bytes per SNP (.bim order), samples (.fam
// order) 4 per byte from the least significant bits. Codes are converted by genotypeCodes.ts.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { convertBedRecord, countMissingCodes } from './genotypeCodes.js';
import { describeBedRecords, type GenotypeRow, type GenotypeSource, type SnpInfo } from './genotypeSource.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import { systemErrorText } from './systemErrorText.js';
import type { SampleName } from './selectionLists.js';
import { forEachTextLine, forEachTextLineIn } from './textLines.js';

/** The three files of a fileset. */
export interface PlinkPaths {
  readonly bed: string;
  readonly bim: string;
  readonly fam: string;
}

const BED_MAGIC = [0x6c, 0x1b, 0x01] as const;
/** Bytes before the first SNP record of a .bed. */
export const BED_HEADER_BYTES = 3;
/** SNP records read per .bed read call (bounded memory whatever the file size). */
const READ_CHUNK_BYTES = 4 << 20;

/** The fileset of `prefixOrBed` (`data/x` or `data/x.bed`), or null when there is no such .bed file. */
export function plinkPathsOf(prefixOrBed: string): PlinkPaths | null {
  const prefix = prefixOrBed.endsWith('.bed') ? prefixOrBed.slice(0, -4) : prefixOrBed;
  const bed = `${prefix}.bed`;
  if (!prefixOrBed.endsWith('.bed') && !existsSync(bed)) return null;
  return { bed, bim: `${prefix}.bim`, fam: `${prefix}.fam` };
}

/**
 * Opens a fileset: reads the .fam and .bim, checks the .bed magic and that its size is exactly
 * 3 + numSnp · ceil(numSample/4) bytes.
 * @throws UserError naming the file and line or byte of the first problem.
 */
export async function openPlinkFileset(paths: PlinkPaths): Promise<GenotypeSource> {
  const { samples, founders } = await readFam(paths.fam);
  const sampleIds = samples.map((sample) => `${sample.fid}_${sample.iid}`);
  const snps = await readBim(paths.bim);
  checkBed(paths, sampleIds.length, snps.length);
  const rows = (): AsyncGenerator<GenotypeRow> => bedRows(paths.bed, snps, sampleIds.length);
  const snpIndices = new Uint32Array(snps.length);
  for (let s = 0; s < snpIndices.length; s++) snpIndices[s] = s;
  describeBedRecords(rows, { bedPath: paths.bed, numSample: sampleIds.length, snpIndices });
  return {
    kind: 'bed',
    path: paths.bed,
    sampleIds,
    samples,
    founders,
    numSnpKnown: snps.length,
    snps,
    rows,
  };
}

/** The .fam's samples, and which are founders (father and mother IDs both 0, as PLINK decides). */
async function readFam(path: string): Promise<{ samples: SampleName[]; founders: boolean[] }> {
  requireFile(path, '.fam');
  const ids: SampleName[] = [];
  const founders: boolean[] = [];
  await forEachTextLine(path, (text, lineNumber) => {
    const columns = columnsOf(text);
    if (columns === null) return;
    if (columns.length < 6) {
      throw new UserError(`${path} line ${lineNumber}: expected 6 columns (FID IID father mother sex phenotype), found ${columns.length}`);
    }
    ids.push({ fid: columns[0], iid: columns[1] });
    founders.push(columns[2] === '0' && columns[3] === '0');
  });
  if (ids.length === 0) throw new UserError(`${path}: no samples`);
  return { samples: ids, founders };
}

async function readBim(path: string): Promise<SnpInfo[]> {
  requireFile(path, '.bim');
  const snps: SnpInfo[] = [];
  // Column k of a line is text[bounds[2k], bounds[2k + 1]): a string only for the five columns kept.
  const bounds = new Int32Array(12);
  // A .bim's chromosome repeats line after line, and most alleles are one letter: their strings are reused.
  let chrom = '';
  const oneLetterAlleles = new Map<number, string>();
  const alleleOf = (text: string, first: number, end: number): string => {
    if (end - first !== 1) return text.slice(first, end);
    const code = text.charCodeAt(first);
    let allele = oneLetterAlleles.get(code);
    if (allele === undefined) oneLetterAlleles.set(code, allele = text.slice(first, end));
    return allele;
  };
  await forEachTextLineIn(path, (text, start, end, lineNumber) => {
    const numColumns = columnBoundsOf(text, start, end, bounds);
    if (numColumns === 0) return;
    if (numColumns !== 6) {
      throw new UserError(`${path} line ${lineNumber}: expected 6 columns (chrom id cM position A1 A2), found ${numColumns}`);
    }
    if (!sameText(chrom, text, bounds[0], bounds[1])) chrom = text.slice(bounds[0], bounds[1]);
    snps.push({
      chrom, id: text.slice(bounds[2], bounds[3]), pos: positionOf(path, lineNumber, text, bounds[6], bounds[7]),
      allele1: alleleOf(text, bounds[8], bounds[9]), allele2: alleleOf(text, bounds[10], bounds[11]),
    });
  });
  if (snps.length === 0) throw new UserError(`${path}: no SNPs`);
  return snps;
}

/** True when `text[first, end)` is `known`. */
function sameText(known: string, text: string, first: number, end: number): boolean {
  if (known.length !== end - first) return false;
  for (let k = 0; k < known.length; k++) if (known.charCodeAt(k) !== text.charCodeAt(first + k)) return false;
  return true;
}

/**
 * The .bim position `text[first, end)`: digits are read in place (Number of the text gives the same); anything
 * else goes through Number and must be a safe integer. @throws UserError naming the line.
 */
function positionOf(path: string, lineNumber: number, text: string, first: number, end: number): number {
  if (end - first <= 15) {
    let value = 0;
    let k = first;
    for (; k < end; k++) {
      const digit = text.charCodeAt(k) - 48;
      if (digit < 0 || digit > 9) break;
      value = 10 * value + digit;
    }
    if (k === end) return value;
  }
  const posText = text.slice(first, end);
  const pos = Number(posText);
  if (!Number.isSafeInteger(pos)) throw new UserError(`${path} line ${lineNumber}: position "${posText}" is not an integer`);
  return pos;
}

/**
 * A line's whitespace-separated columns (spaces and tabs, as PLINK splits them), or null for a blank line. A scan by
 * character codes: a .bim has a line per SNP (millions), where trim and a regular-expression split cost 3× as much.
 */
function columnsOf(text: string): string[] | null {
  const columns: string[] = [];
  const length = text.length;
  let at = 0;
  while (at < length) {
    while (at < length && isBlank(text.charCodeAt(at))) at++;
    if (at === length) break;
    const start = at;
    while (at < length && !isBlank(text.charCodeAt(at))) at++;
    columns.push(text.slice(start, at));
  }
  return columns.length === 0 ? null : columns;
}

/**
 * columnsOf's columns of `text[start, end)` as bounds (column k at `[bounds[2k], bounds[2k + 1])`, the first
 * bounds.length / 2 of them); returns how many columns the line has (0 for a blank line).
 */
function columnBoundsOf(text: string, start: number, end: number, bounds: Int32Array): number {
  const most = bounds.length >> 1;
  let numColumns = 0;
  let at = start;
  while (at < end) {
    while (at < end && isBlank(text.charCodeAt(at))) at++;
    if (at === end) break;
    const first = at;
    while (at < end && !isBlank(text.charCodeAt(at))) at++;
    if (numColumns < most) {
      bounds[2 * numColumns] = first;
      bounds[2 * numColumns + 1] = at;
    }
    numColumns++;
  }
  return numColumns;
}

/** Space, tab, and the other ASCII whitespace that `\s` matches in a line (vertical tab, form feed, a stray CR). */
function isBlank(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

function checkBed(paths: PlinkPaths, numSample: number, numSnp: number): void {
  requireFile(paths.bed, '.bed');
  const size = statSync(paths.bed).size;
  const head = new Uint8Array(BED_HEADER_BYTES);
  const fd = openSync(paths.bed, 'r');
  try {
    readSync(fd, head, 0, BED_HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (size < BED_HEADER_BYTES || BED_MAGIC.some((byte, i) => head[i] !== byte)) {
    const found = Array.from(head.subarray(0, Math.min(size, BED_HEADER_BYTES)), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new UserError(
      `${paths.bed} byte 0: not a SNP-major PLINK 1 .bed file (magic 6c 1b 01 expected, found ${found || 'nothing'})`);
  }
  const bytesPerSnp = packedBytesPerVector(numSample);
  const expected = BED_HEADER_BYTES + numSnp * bytesPerSnp;
  if (size === expected) return;
  const recordsInBed = (size - BED_HEADER_BYTES) / bytesPerSnp;
  const counts = `${numSnp} SNPs in ${paths.bim} × ${bytesPerSnp} bytes for ${numSample} samples in ${paths.fam}`;
  if (size < expected) {
    const firstIncomplete = Math.floor(recordsInBed);
    throw new UserError(
      `${paths.bed} is truncated or does not match its .bim/.fam: ${size} bytes, expected ${expected} (${counts}); ` +
      `SNP record ${firstIncomplete + 1} (.bim line order) ${Number.isInteger(recordsInBed) ? 'is missing' : 'is incomplete'}`);
  }
  throw new UserError(
    `${paths.bed} does not match its .bim/.fam: ${size} bytes, expected ${expected} (${counts}); ` +
    `it holds ${Number.isInteger(recordsInBed) ? recordsInBed : recordsInBed.toFixed(2)} SNP records`);
}

async function* bedRows(bedPath: string, snps: readonly SnpInfo[], numSample: number): AsyncGenerator<GenotypeRow> {
  const bytesPerSnp = packedBytesPerVector(numSample);
  const snpsPerRead = Math.max(1, Math.floor(READ_CHUNK_BYTES / bytesPerSnp));
  const chunk = new Uint8Array(Math.min(snpsPerRead, snps.length) * bytesPerSnp);
  const packed = new Uint8Array(bytesPerSnp);
  const fd = openSync(bedPath, 'r');
  try {
    for (let first = 0; first < snps.length; first += snpsPerRead) {
      const count = Math.min(snpsPerRead, snps.length - first);
      const position = BED_HEADER_BYTES + first * bytesPerSnp;
      readFully(fd, bedPath, chunk, count * bytesPerSnp, position);
      for (let s = 0; s < count; s++) {
        convertBedRecord(chunk.subarray(s * bytesPerSnp, (s + 1) * bytesPerSnp), numSample, packed);
        yield { snp: snps[first + s], packed, numMissing: countMissingCodes(packed) };
      }
    }
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, path: string, buffer: Uint8Array, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const got = readSync(fd, buffer, done, length - done, position + done);
    if (got === 0) throw new UserError(`${path} ends at byte ${position + done}: the file shrank while it was read`);
    done += got;
  }
}

function requireFile(path: string, what: string): void {
  try {
    if (!statSync(path).isFile()) throw new UserError(`${what} file ${path} is not a regular file`);
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(`cannot read ${what} file ${path}: ${systemErrorText(error)}`);
  }
}
