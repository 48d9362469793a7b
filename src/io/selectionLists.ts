// The ID files of PLINK's selection flags: variant IDs (--extract, --exclude) and sample IDs (--keep, --remove).
import { closeSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { openForReading } from './openForReading.js';
import { readTextLines } from './textLines.js';

/** A sample's name: PLINK's family and individual IDs; a VCF sample has only its name, as IID (PLINK 2). */
export interface SampleName {
  readonly fid: string | null;
  readonly iid: string;
}

/** The samples a --keep/--remove file names: `FID IID` pairs, and IIDs given alone (PLINK 2's one-column form). */
export interface SampleIdList {
  readonly path: string;
  /** `FID\tIID` of two-column lines. */
  readonly pairs: ReadonlySet<string>;
  /** IIDs of one-column lines (or of a `#IID` header's file). */
  readonly iids: ReadonlySet<string>;
  /** For VCF samples, which have no FID: the IIDs of the pairs, and the pairs joined as `FID_IID`. */
  readonly pairIids: ReadonlySet<string>;
  readonly pairsJoined: ReadonlySet<string>;
}

/** Reads a file of variant IDs separated by any whitespace (PLINK's --extract/--exclude). */
export async function readVariantIdFile(path: string, option: string): Promise<ReadonlySet<string>> {
  checkReadable(path, option);
  const ids = new Set<string>();
  for await (const { text } of readTextLines(path)) {
    for (const id of text.split(/\s+/)) if (id !== '') ids.add(id);
  }
  return ids;
}

/**
 * Reads a --keep/--remove file: one sample per line, `FID IID` (PLINK 1.9; further columns ignored) or `IID` alone
 * (PLINK 2). A header line `#FID IID …` or `#IID …` says which; without one each line's column count does.
 * @throws UserError naming the file and line of a malformed line.
 */
export async function readSampleIdFile(path: string, option: string): Promise<SampleIdList> {
  checkReadable(path, option);
  const pairs = new Set<string>();
  const iids = new Set<string>();
  const pairIids = new Set<string>();
  const pairsJoined = new Set<string>();
  let iidOnly: boolean | null = null;
  for await (const { text, lineNumber } of readTextLines(path)) {
    const columns = text.trim().split(/\s+/).filter((column) => column !== '');
    if (columns.length === 0) continue;
    if (lineNumber === 1 && columns[0].startsWith('#')) {
      const first = columns[0].toUpperCase();
      if (first !== '#FID' && first !== '#IID') {
        throw new UserError(`${option} ${path} line 1: a header must start with #FID or #IID, found "${columns[0]}"`);
      }
      iidOnly = first === '#IID';
      continue;
    }
    if (iidOnly === true || (iidOnly === null && columns.length === 1)) {
      iids.add(columns[0]);
    } else if (columns.length >= 2) {
      pairs.add(`${columns[0]}\t${columns[1]}`);
      pairIids.add(columns[1]);
      pairsJoined.add(`${columns[0]}_${columns[1]}`);
    } else {
      throw new UserError(`${option} ${path} line ${lineNumber}: expected FID and IID (after the #FID header), found one column`);
    }
  }
  return { path, pairs, iids, pairIids, pairsJoined };
}

/**
 * Whether a list names a sample. A PLINK sample matches its `FID IID` pair or its IID alone; a VCF sample (no FID)
 * matches its name as IID alone or in a pair whose IID it is, or as `FID_IID` (how `plink1.9 --recode vcf` names
 * samples, which PLINK 1.9 splits back at the underscore).
 */
export function sampleListNames(list: SampleIdList, sample: SampleName): boolean {
  if (list.iids.has(sample.iid)) return true;
  if (sample.fid !== null) return list.pairs.has(`${sample.fid}\t${sample.iid}`);
  return list.pairIids.has(sample.iid) || list.pairsJoined.has(sample.iid);
}

function checkReadable(path: string, option: string): void {
  closeSync(openForReading(path, `${option} file`));
}
