// Case-control phenotypes with PLINK's conventions: .fam column 6 or a --pheno file (FID IID values, header optional,
// --pheno-name picks a column), 1 = control, 2 = case, 0 / −9 / non-numeric = missing (the sample is left out); and the
// genotype source reordered once as [controls | cases], so that a class is a range of fields.
import { UserError } from '../core/errors.js';
import { wholeBedRecordsOf, type BedRecords, type GenotypeRow, type GenotypeSource, type SnpInfo } from './genotypeSource.js';
import { ClassOrder } from './classOrder.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import type { SampleName } from './selectionLists.js';
import { forEachTextLine } from './textLines.js';

/** A sample's class: control, case, or missing (left out). */
export const CLASS_CONTROL = 0;
export const CLASS_CASE = 1;
export const CLASS_MISSING = 2;

/** The class of every sample of a source, and where it came from. */
export interface SampleClasses {
  /** `classes[s]`: CLASS_CONTROL, CLASS_CASE or CLASS_MISSING for sample s of the source. */
  readonly classes: Uint8Array;
  /** The file and column read (`x.fam column 6`, `p.txt column PHENO1`). */
  readonly description: string;
}

/** What a case-control ordering kept, as the sidecar records it. */
export interface CaseControlRecord {
  readonly phenotypes: string;
  readonly numControls: number;
  readonly numCases: number;
  /** Samples left out for a missing phenotype. */
  readonly numMissingPhenotype: number;
}

/** PLINK 1.9's case-control value: "1" control, "2" case, "0", "-9" or non-numeric missing; null for any other number. */
export function phenotypeClassOf(text: string): number | null {
  const value = Number(text);
  if (text.trim() === '' || Number.isNaN(value)) return CLASS_MISSING;
  if (value === 1) return CLASS_CONTROL;
  if (value === 2) return CLASS_CASE;
  if (value === 0 || value === -9) return CLASS_MISSING;
  return null;
}

function classOrFail(text: string, where: string, sample: string): number {
  const cls = phenotypeClassOf(text);
  if (cls === null) {
    throw new UserError(`${where}: phenotype "${text}" of sample ${sample} is not 1 (control), 2 (case) or missing (0, -9, non-numeric)`);
  }
  return cls;
}

/** Column 6 of a .fam, matched to `samples` by FID and IID (a selection may have dropped some of its lines). */
export async function readFamPhenotypes(famPath: string, samples: readonly SampleName[]): Promise<SampleClasses> {
  return classesByName(famPath, samples, { label: famPath, column: 5, headerNames: null });
}

/**
 * A --pheno file: `FID IID value…` per line, whitespace-separated; a first line starting `FID IID` is a header naming
 * the columns (needed by `name`, --pheno-name); without `name` the first value column. Samples of the source it does
 * not name are missing; a VCF sample (no FID) is named by its IID.
 * @throws UserError naming the file and line of a short line, a sample named twice, an unknown column or a bad value.
 */
export async function readPhenotypeFile(path: string, samples: readonly SampleName[], name: string | null): Promise<SampleClasses> {
  return classesByName(path, samples, { label: `--pheno ${path}`, column: 2, headerNames: name === null ? 'optional' : name });
}

interface ClassColumn {
  readonly label: string;
  /** 0-based column without a header. */
  readonly column: number;
  /** null: no header line; 'optional': a header may come and is skipped; a name: the header must come and name it. */
  readonly headerNames: string | null;
}

async function classesByName(path: string, samples: readonly SampleName[], spec: ClassColumn): Promise<SampleClasses> {
  const indexOf = new Map<string, number>();
  samples.forEach((sample, sampleIdx) => indexOf.set(sample.fid === null ? `\u0000${sample.iid}` : `${sample.fid}\t${sample.iid}`, sampleIdx));
  const classes = new Uint8Array(samples.length).fill(CLASS_MISSING);
  const seen = new Uint8Array(samples.length);
  let column = spec.column;
  let columnName = `column ${column + 1}`;
  let first = true;
  await forEachTextLine(path, (text, lineNumber) => {
    const columns = text.trim().split(/\s+/);
    if (columns.length === 1 && columns[0] === '') return;
    const isHeader = first && spec.headerNames !== null && columns[0].toUpperCase() === 'FID' && columns[1]?.toUpperCase() === 'IID';
    const wantedName = spec.headerNames !== null && spec.headerNames !== 'optional' ? spec.headerNames : null;
    if (first && wantedName !== null && !isHeader) {
      throw new UserError(`--pheno-name ${wantedName}: ${path} line ${lineNumber} is not a header line (FID IID names…)`);
    }
    first = false;
    if (isHeader) {
      if (wantedName !== null) {
        column = columns.indexOf(wantedName, 2);
        if (column < 0) throw new UserError(`${spec.label} line ${lineNumber}: no column named "${wantedName}" (--pheno-name)`);
        columnName = `column ${wantedName}`;
      }
      return;
    }
    const where = `${spec.label} line ${lineNumber}`;
    if (columns.length <= column) throw new UserError(`${where}: ${columns.length} columns, the phenotype is column ${column + 1}`);
    const [fid, iid] = columns;
    const sampleIdx = indexOf.get(`${fid}\t${iid}`) ?? indexOf.get(`\u0000${iid}`);
    if (sampleIdx === undefined) return;
    if (seen[sampleIdx] === 1) throw new UserError(`${where}: sample ${fid} ${iid} appears a second time`);
    seen[sampleIdx] = 1;
    classes[sampleIdx] = classOrFail(columns[column], where, `${fid} ${iid}`);
  });
  return { classes, description: `${path} ${columnName}` };
}

/** Whole .bed records (wholeBedRecordsOf) whose rows are class-ordered: what a bulk read needs to make the same rows. */
export interface ClassOrderedRecords {
  readonly records: BedRecords;
  readonly snps: readonly SnpInfo[];
  readonly classOrder: ClassOrder;
}

const CLASS_ORDERED_RECORDS = new WeakMap<GenotypeSource['rows'], ClassOrderedRecords>();

/** The whole .bed records that `source`'s rows class-order (orderByClass), or null when its rows are not such. */
export function classOrderedRecordsOf(source: GenotypeSource): ClassOrderedRecords | null {
  return CLASS_ORDERED_RECORDS.get(source.rows) ?? null;
}

/**
 * The source with its samples ordered [controls | cases] (each in source order), samples of missing phenotype left
 * out, and the record of what was kept.
 * @throws UserError when there are no controls or no cases.
 */
export function orderByClass(source: GenotypeSource, classes: SampleClasses): { source: GenotypeSource; record: CaseControlRecord } {
  if (classes.classes.length !== source.samples.length) throw new Error('phenotype classes do not match the samples');
  const order: number[] = [];
  for (const wanted of [CLASS_CONTROL, CLASS_CASE]) classes.classes.forEach((cls, sampleIdx) => { if (cls === wanted) order.push(sampleIdx); });
  const numControls = classes.classes.filter((cls) => cls === CLASS_CONTROL).length;
  const numCases = order.length - numControls;
  if (numControls === 0 || numCases === 0) {
    throw new UserError(`${classes.description}: ${numControls} controls and ${numCases} cases among ${source.samples.length} samples; ` +
      'case-control epistasis needs both (1 = control, 2 = case)');
  }
  const ordered = new Uint8Array(packedBytesPerVector(order.length));
  const classOrder = new ClassOrder(classes.classes);
  async function* rows(): AsyncGenerator<GenotypeRow> {
    for await (const row of source.rows()) {
      const numMissing = classOrder.reorder(row.packed, ordered);
      yield { snp: row.snp, packed: ordered, numMissing };
    }
  }
  const whole = wholeBedRecordsOf(source);
  if (whole !== null) CLASS_ORDERED_RECORDS.set(rows, { ...whole, classOrder });
  return {
    source: {
      kind: source.kind, path: source.path, numSnpKnown: source.numSnpKnown, snps: source.snps ?? null, rows,
      sampleIds: order.map((sampleIdx) => source.sampleIds[sampleIdx]),
      samples: order.map((sampleIdx) => source.samples[sampleIdx]),
    },
    record: { phenotypes: classes.description, numControls, numCases, numMissingPhenotype: source.samples.length - order.length },
  };
}
