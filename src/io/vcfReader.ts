// VCF and bgzipped VCF: streams biallelic diploid GT calls as SPEC-coded vectors, one SNP per data line.
//
// Allele 1 is ALT: a call's code counts its ALT alleles (0/0 → 00, 0/1 and 1/0 → 01, 1/1 → 11), which
// matches PLINK, whose --recode vcf writes A1 as ALT and A2 as REF. Phased (|) and unphased (/) calls
// are alike. `.`, `./.` and half-missing calls such as `./1` are missing (code 10), as PLINK reads them.
// Bad sites (multi-allelic, non-diploid or out-of-range calls, malformed fields) follow the
// --on-bad-site policy; a data line whose column count differs from the header's is always an error.
import { UserError } from '../core/errors.js';
import { CODE_BY_ALLELE1_COPIES, CODE_MISSING } from './genotypeCodes.js';
import type { GenotypeReadOptions, GenotypeRow, GenotypeSource, SnpInfo } from './genotypeSource.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import { readTextLines, type NumberedLine } from './textLines.js';

const FIXED_COLUMNS = 9;
const HEADER_COLUMNS = ['#CHROM', 'POS', 'ID', 'REF', 'ALT', 'QUAL', 'FILTER', 'INFO', 'FORMAT'];

/** True for the names a VCF input goes by: .vcf, .vcf.gz, .vcf.bgz. */
export function looksLikeVcf(path: string): boolean {
  return /\.vcf(\.b?gz)?$/i.test(path);
}

/** A site the reader refuses: thrown inside, turned into a skip or an error by the policy. */
class BadSiteError extends Error {}

/**
 * Opens a VCF: reads the meta lines and the #CHROM header (sample IDs); rows are then read on demand.
 * @throws UserError when the header is missing or malformed, or names no samples.
 */
export async function openVcf(path: string, options: GenotypeReadOptions): Promise<GenotypeSource> {
  const lines = readTextLines(path);
  let sampleIds: string[];
  try {
    sampleIds = await readHeader(path, lines);
  } catch (error) {
    await lines.return(undefined);
    throw error;
  }
  return {
    kind: 'vcf',
    path,
    sampleIds,
    numSnpKnown: null,
    rows: () => vcfRows(path, lines, sampleIds.length, options),
  };
}

async function readHeader(path: string, lines: AsyncGenerator<NumberedLine>): Promise<string[]> {
  for (;;) {
    const next = await lines.next();
    if (next.done === true) throw new UserError(`${path}: no #CHROM header line (is it a VCF file?)`);
    const { text, lineNumber } = next.value;
    if (text.startsWith('##')) continue;
    if (!text.startsWith('#CHROM')) {
      throw new UserError(`${path} line ${lineNumber}: expected the #CHROM header line, found "${text.slice(0, 40)}"`);
    }
    const columns = text.split('\t');
    const fixedOk = HEADER_COLUMNS.every((name, i) => columns[i] === name);
    if (!fixedOk || columns.length <= FIXED_COLUMNS) {
      throw new UserError(
        `${path} line ${lineNumber}: header must be tab-separated ${HEADER_COLUMNS.join(' ')} then sample IDs`);
    }
    return columns.slice(FIXED_COLUMNS);
  }
}

async function* vcfRows(
  path: string, lines: AsyncGenerator<NumberedLine>, numSample: number, options: GenotypeReadOptions,
): AsyncGenerator<GenotypeRow> {
  const packed = new Uint8Array(packedBytesPerVector(numSample));
  for await (const { text, lineNumber } of lines) {
    if (text === '') continue;
    const numColumns = countColumns(text);
    if (numColumns !== FIXED_COLUMNS + numSample) {
      throw new UserError(
        `${path} line ${lineNumber}: ${numColumns - FIXED_COLUMNS} sample columns, but the header names ${numSample} samples`);
    }
    let row: GenotypeRow;
    try {
      const fixed = fixedColumns(text);
      const snp = parseSite(fixed.columns);
      const numMissing = packCalls(text, fixed.samplesStart, fixed.columns[FIXED_COLUMNS - 1], numSample, packed);
      row = { snp, packed, numMissing };
    } catch (error) {
      if (!(error instanceof BadSiteError)) throw error;
      const site = { path, line: lineNumber, reason: error.message };
      if (options.onBadSite === 'error') {
        throw new UserError(`${path} line ${lineNumber}: ${error.message} (use --on-bad-site skip to skip such sites)`);
      }
      options.reportSkipped?.(site);
      continue;
    }
    yield row;
  }
}

/** Tab-separated columns of a line (counted with indexOf: lines of many samples are long). */
function countColumns(text: string): number {
  let count = 1;
  for (let tab = text.indexOf('\t'); tab >= 0; tab = text.indexOf('\t', tab + 1)) count++;
  return count;
}

/** The 9 fixed columns and where the first sample column starts (the line has all of them). */
function fixedColumns(text: string): { columns: string[]; samplesStart: number } {
  const columns: string[] = [];
  let start = 0;
  for (let c = 0; c < FIXED_COLUMNS; c++) {
    const tab = text.indexOf('\t', start);
    columns.push(text.slice(start, tab));
    start = tab + 1;
  }
  return { columns, samplesStart: start };
}

function parseSite(columns: readonly string[]): SnpInfo {
  const [chrom, posText, id, ref, alt] = columns;
  if (chrom === '') throw new BadSiteError('empty CHROM');
  if (!/^\d+$/.test(posText)) throw new BadSiteError(`POS "${posText}" is not a non-negative integer`);
  if (ref === '' || ref === '.') throw new BadSiteError('missing REF allele');
  if (alt.includes(',')) throw new BadSiteError(`multi-allelic site (ALT ${alt}); only biallelic sites are read`);
  if (alt === '') throw new BadSiteError('empty ALT');
  const pos = Number(posText);
  return { chrom, pos, id: id === '.' || id === '' ? `${chrom}:${pos}:${ref}:${alt}` : id, allele1: alt, allele2: ref };
}

const CHAR_0 = 48;
const CHAR_1 = 49;
const CHAR_DOT = 46;
const CHAR_SLASH = 47;
const CHAR_BAR = 124;
const CHAR_COLON = 58;

/**
 * Packs the GT calls of one line (sample columns from `samplesStart`) into `packed`; returns the number
 * of missing calls. The common shape — GT first in FORMAT, one-character alleles such as `0/1`, `1|1`,
 * `./.` — is decoded from character codes; anything else goes through {@link callCode}.
 */
function packCalls(text: string, samplesStart: number, format: string, numSample: number, packed: Uint8Array): number {
  const formatKeys = format.split(':');
  const gtIndex = formatKeys.indexOf('GT');
  if (gtIndex < 0) throw new BadSiteError(`no GT in FORMAT "${format}"`);
  packed.fill(0);
  let numMissing = 0;
  let start = samplesStart;
  for (let s = 0; s < numSample; s++) {
    const tab = text.indexOf('\t', start);
    const end = tab < 0 ? text.length : tab;
    let code = -1;
    if (gtIndex === 0 && end - start >= 3 && (end - start === 3 || text.charCodeAt(start + 3) === CHAR_COLON)) {
      const separator = text.charCodeAt(start + 1);
      if (separator === CHAR_SLASH || separator === CHAR_BAR) {
        code = diploidCode(text.charCodeAt(start), text.charCodeAt(start + 2));
      }
    }
    if (code < 0) {
      const sampleText = text.slice(start, end);
      code = callCode(gtIndex === 0 ? sampleText.split(':', 1)[0] : sampleText.split(':')[gtIndex] ?? '.', s);
    }
    if (code === CODE_MISSING) numMissing++;
    packed[s >>> 2] |= code << ((s & 3) * 2);
    start = end + 1;
  }
  return numMissing;
}

/** Code of a diploid call from its two allele characters; −1 when either is not 0, 1 or `.`. */
function diploidCode(first: number, second: number): number {
  if (first === CHAR_DOT || second === CHAR_DOT) {
    return (first === CHAR_DOT || first === CHAR_0 || first === CHAR_1) &&
      (second === CHAR_DOT || second === CHAR_0 || second === CHAR_1) ? CODE_MISSING : -1;
  }
  if ((first !== CHAR_0 && first !== CHAR_1) || (second !== CHAR_0 && second !== CHAR_1)) return -1;
  return CODE_BY_ALLELE1_COPIES[(first - CHAR_0) + (second - CHAR_0)];
}

/** The SPEC code of one GT value of a biallelic site. */
function callCode(gt: string, sampleIdx: number): number {
  if (gt === '.' || gt === '') return CODE_MISSING;
  const alleles = gt.split(/[/|]/);
  if (alleles.length !== 2) {
    throw new BadSiteError(`sample ${sampleIdx + 1}: non-diploid call GT "${gt}"; only diploid calls are read`);
  }
  let copies = 0;
  for (const allele of alleles) {
    if (allele === '.') return CODE_MISSING;
    if (allele === '1') copies++;
    else if (allele !== '0') throw new BadSiteError(`sample ${sampleIdx + 1}: GT "${gt}" is not 0, 1 or . on a biallelic site`);
  }
  return CODE_BY_ALLELE1_COPIES[copies];
}
