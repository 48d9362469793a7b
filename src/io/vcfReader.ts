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
import { readLineBatches, type LineBatch } from './textLines.js';

const FIXED_COLUMNS = 9;
const HEADER_COLUMNS = ['#CHROM', 'POS', 'ID', 'REF', 'ALT', 'QUAL', 'FILTER', 'INFO', 'FORMAT'];

/** True for the names a VCF input goes by: .vcf, .vcf.gz, .vcf.bgz. */
export function looksLikeVcf(path: string): boolean {
  return /\.vcf(\.b?gz)?$/i.test(path);
}

/** A site the reader refuses: thrown inside, turned into a skip or an error by the policy. */
class BadSiteError extends Error {}

/** Where the data lines start: the batch holding the #CHROM line, and the index of the line after it. */
interface DataStart {
  readonly batch: LineBatch;
  readonly next: number;
}

/**
 * Opens a VCF: reads the meta lines and the #CHROM header (sample IDs); rows are then read on demand.
 * @throws UserError when the header is missing or malformed, or names no samples.
 */
export async function openVcf(path: string, options: GenotypeReadOptions): Promise<GenotypeSource> {
  const batches = readLineBatches(path);
  let header: { sampleIds: string[]; dataStart: DataStart };
  try {
    header = await readHeader(path, batches);
  } catch (error) {
    await batches.return(undefined);
    throw error;
  }
  return {
    kind: 'vcf',
    path,
    sampleIds: header.sampleIds,
    samples: header.sampleIds.map((iid) => ({ fid: null, iid })),
    numSnpKnown: null,
    rows: () => vcfRows(path, batches, header.dataStart, header.sampleIds.length, options),
  };
}

async function readHeader(path: string, batches: AsyncGenerator<LineBatch>): Promise<{ sampleIds: string[]; dataStart: DataStart }> {
  // Not for-await: leaving such a loop would end the generator, and the rows go on reading it.
  for (let next = await batches.next(); next.done !== true; next = await batches.next()) {
    const batch = next.value;
    for (let k = 0; k < batch.starts.length; k++) {
      const lineNumber = batch.firstLineNumber + k;
      // Meta lines are skipped undecoded (a VCF can have thousands).
      if (batch.bytes[batch.starts[k]] === CHAR_HASH && batch.bytes[batch.starts[k] + 1] === CHAR_HASH) continue;
      const text = batch.bytes.toString('utf8', batch.starts[k], batch.ends[k]);
      if (!text.startsWith('#CHROM')) {
        throw new UserError(`${path} line ${lineNumber}: expected the #CHROM header line, found "${text.slice(0, 40)}"`);
      }
      const columns = text.split('\t');
      const fixedOk = HEADER_COLUMNS.every((name, i) => columns[i] === name);
      if (!fixedOk || columns.length <= FIXED_COLUMNS) {
        throw new UserError(
          `${path} line ${lineNumber}: header must be tab-separated ${HEADER_COLUMNS.join(' ')} then sample IDs`);
      }
      // The generator is not advanced again before the rows read this batch's remaining lines.
      return { sampleIds: columns.slice(FIXED_COLUMNS), dataStart: { batch, next: k + 1 } };
    }
  }
  throw new UserError(`${path}: no #CHROM header line (is it a VCF file?)`);
}

async function* vcfRows(
  path: string, batches: AsyncGenerator<LineBatch>, dataStart: DataStart, numSample: number, options: GenotypeReadOptions,
): AsyncGenerator<GenotypeRow> {
  const line = new VcfLineParser(path, numSample);
  try {
    // The header's batch from the line after #CHROM, then every later batch: an await per batch, not per line.
    for (let batch: LineBatch | null = dataStart.batch, k = dataStart.next; batch !== null;) {
      for (; k < batch.starts.length; k++) {
        const start = batch.starts[k];
        const end = batch.ends[k];
        if (start === end) continue;
        const lineNumber = batch.firstLineNumber + k;
        let row: GenotypeRow;
        try {
          row = line.parse(batch.bytes, start, end, lineNumber);
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
      const next = await batches.next();
      batch = next.done === true ? null : next.value;
      k = 0;
    }
  } finally {
    // Ends the file's stream when the rows are left early (an error, a reader that stops).
    await batches.return(undefined);
  }
}

/**
 * Reads data lines from their bytes: the fixed columns are decoded, the calls are not. The common shape — GT
 * first in FORMAT, one-character alleles such as `0/1`, `1|1`, `./.` — is decoded byte by byte; any other call
 * goes through {@link callCode}. A line's column count is checked before anything else is reported about it.
 */
class VcfLineParser {
  private readonly packed: Uint8Array;
  private readonly fixedEnds = new Int32Array(FIXED_COLUMNS);

  constructor(private readonly path: string, private readonly numSample: number) {
    this.packed = new Uint8Array(packedBytesPerVector(numSample));
  }

  /**
   * The row of line `lineNumber`, bytes `[start, end)` (valid until the next line is parsed).
   * @throws UserError when its sample count is not the header's; BadSiteError for a site the policy decides on.
   */
  parse(bytes: Buffer, start: number, end: number, lineNumber: number): GenotypeRow {
    const fixedEnds = this.fixedEnds;
    let p = start;
    for (let c = 0; c < FIXED_COLUMNS; c++) {
      const tab = bytes.indexOf(TAB, p);
      if (tab < 0 || tab >= end) this.throwColumnCount(bytes, start, end, lineNumber);
      fixedEnds[c] = tab;
      p = tab + 1;
    }
    const column = (c: number): string => bytes.toString('utf8', c === 0 ? start : fixedEnds[c - 1] + 1, fixedEnds[c]);
    const format = column(FIXED_COLUMNS - 1);
    const gtIndex = format.split(':').indexOf('GT');
    const calls = gtIndex < 0 ? null : this.packCalls(bytes, p, end, gtIndex);
    if (calls === null ? countColumns(bytes, start, end) !== FIXED_COLUMNS + this.numSample : !calls.complete) {
      this.throwColumnCount(bytes, start, end, lineNumber);
    }
    const snp = parseSite([column(0), column(1), column(2), column(3), column(4)]);
    if (calls === null) throw new BadSiteError(`no GT in FORMAT "${format}"`);
    if (calls.badCall !== null) throw calls.badCall;
    return { snp, packed: this.packed, numMissing: calls.numMissing };
  }

  /**
   * Packs the GT calls of the sample columns from `p` to `end`; `complete` says whether there were exactly as many
   * columns as samples. A bad call does not stop the scan (the column count comes first): the first is returned.
   */
  private packCalls(bytes: Buffer, p: number, end: number, gtIndex: number): { complete: boolean; numMissing: number; badCall: BadSiteError | null } {
    const packed = this.packed;
    const codeOfPair = diploidCodeTable();
    packed.fill(0);
    let numMissing = 0;
    let badCall: BadSiteError | null = null;
    let s = 0;
    for (; s < this.numSample && p <= end; s++) {
      let code = -1;
      let next = -1;
      if (gtIndex === 0 && p + 3 <= end) {
        const separator = bytes[p + 1];
        const after = p + 3 === end ? TAB : bytes[p + 3];
        if ((separator === CHAR_SLASH || separator === CHAR_BAR) && (after === TAB || after === CHAR_COLON)) {
          code = codeOfPair[(bytes[p] << 8) | bytes[p + 2]];
          next = after === TAB ? p + 4 : columnEnd(bytes, p + 3, end) + 1;
        }
      }
      if (code < 0) {
        const fieldEnd = columnEnd(bytes, p, end);
        const other = otherCallCode(bytes.toString('utf8', p, fieldEnd), gtIndex, s);
        if (typeof other === 'number') {
          code = other;
        } else {
          badCall ??= other;
          code = CODE_MISSING;
        }
        next = fieldEnd + 1;
      }
      if (code === CODE_MISSING) numMissing++;
      packed[s >>> 2] |= code << ((s & 3) * 2);
      p = next;
    }
    // The last column ends at the line's end: p is then one past it.
    return { complete: s === this.numSample && p === end + 1, numMissing, badCall };
  }

  private throwColumnCount(bytes: Buffer, start: number, end: number, lineNumber: number): never {
    const numColumns = countColumns(bytes, start, end);
    const found = numColumns <= FIXED_COLUMNS
      ? `${numColumns} tab-separated column${numColumns === 1 ? '' : 's'}, not even the ${FIXED_COLUMNS} fixed ones`
      : `${numColumns - FIXED_COLUMNS} sample columns`;
    throw new UserError(`${this.path} line ${lineNumber}: ${found}, but the header names ${this.numSample} samples`);
  }
}

/** Code of a sample column in any shape but the common one (callCode), or why the call is bad. */
function otherCallCode(sampleText: string, gtIndex: number, sampleIdx: number): number | BadSiteError {
  try {
    return callCode(gtIndex === 0 ? sampleText.split(':', 1)[0] : sampleText.split(':')[gtIndex] ?? '.', sampleIdx);
  } catch (error) {
    if (!(error instanceof BadSiteError)) throw error;
    return error;
  }
}

/** End of the column starting at `p`: the next tab, or the line's end. */
function columnEnd(bytes: Buffer, p: number, end: number): number {
  const tab = bytes.indexOf(TAB, p);
  return tab < 0 || tab >= end ? end : tab;
}

/** Tab-separated columns of the line `[start, end)`. */
function countColumns(bytes: Buffer, start: number, end: number): number {
  let count = 1;
  for (let tab = bytes.indexOf(TAB, start); tab >= 0 && tab < end; tab = bytes.indexOf(TAB, tab + 1)) count++;
  return count;
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
const CHAR_HASH = 35;
const TAB = 9;

let diploidCodes: Int8Array | null = null;

/**
 * diploidCode of every pair of bytes, `(first << 8) | second`: one lookup a call. Built on the first VCF read, not
 * when the module loads (every command that reads genotypes loads it, most of them for PLINK filesets).
 */
function diploidCodeTable(): Int8Array {
  if (diploidCodes === null) {
    diploidCodes = new Int8Array(1 << 16);
    for (let pair = 0; pair < diploidCodes.length; pair++) diploidCodes[pair] = diploidCode(pair >> 8, pair & 0xff);
  }
  return diploidCodes;
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
  // An empty field is no call at all (a missing one is written `.`): a broken line, not a missing genotype.
  if (gt === '') throw new BadSiteError(`sample ${sampleIdx + 1}: empty GT field`);
  if (gt === '.') return CODE_MISSING;
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
