// The tables `dump` and `top` print: the formats (records, tsv, PLINK's ld), their header and lines, and the orders
// (position: chromosomes in file order, then bp, then the next vector; value: strongest first — the largest, or the smallest for K2
// records —, ties by SNP indices).
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { ldLocusText, ldTableHeader, ldTableLineOfLoci, plinkSnpColumnWidth, vectorsAreSamples, type PreparedSidecar } from '../io/index.js';
import { formatFloat32 } from './formatFloat32.js';
import { formatNamedRecord, recordHeader } from './recordFormat.js';
import type { NamedRecord, SnpNaming } from './snpNaming.js';

/** Table formats: snptally's records (indices, IDs, entry, value), a headed TSV with loci, PLINK 1.9's `.ld`. */
export const TABLE_FORMATS = ['records', 'tsv', 'ld'] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

/** Row orders: by position of the tuple's SNPs, by value (strongest first), or as the files hold them (dump only). */
export const TABLE_ORDERS = ['position', 'value', 'file'] as const;
export type TableOrder = (typeof TABLE_ORDERS)[number];

/** Column letters of the tuple's SNPs. */
const SIDES = ['A', 'B', 'C', 'D'];

/**
 * Each SNP's place in position order: chromosomes in the order they first appear in the input, then bp, then the SNP
 * index (so a sorted input keeps its order). Without a sidecar the SNP index is the position.
 */
export function positionRanks(sidecar: PreparedSidecar | null, numSnp: number): { rankOfSnp: Uint32Array; snpOfRank: Uint32Array } {
  const snpOfRank = new Uint32Array(numSnp);
  for (let s = 0; s < numSnp; s++) snpOfRank[s] = s;
  // Samples (`prepare --individuals`) have no position: their file order is kept.
  if (sidecar !== null && !vectorsAreSamples(sidecar)) {
    const chromosomeOrder = new Map<string, number>();
    for (const chromosome of sidecar.snps.chrom) if (!chromosomeOrder.has(chromosome)) chromosomeOrder.set(chromosome, chromosomeOrder.size);
    const chromosomeRank = sidecar.snps.chrom.map((chromosome) => chromosomeOrder.get(chromosome) as number);
    const { pos } = sidecar.snps;
    snpOfRank.sort((a, b) => chromosomeRank[a] - chromosomeRank[b] || pos[a] - pos[b] || a - b);
  }
  const rankOfSnp = new Uint32Array(numSnp);
  for (let r = 0; r < numSnp; r++) rankOfSnp[snpOfRank[r]] = r;
  return { rankOfSnp, snpOfRank };
}

/** What a table needs to know of the run. */
export interface TableContext {
  readonly format: TableFormat;
  readonly numWay: NumWay;
  /** The run's metric (run.json), or null when unknown. */
  readonly metric: string | null;
  /** Which values are the stronger (runInfoFile.ts strongerRecordValues): `value` order puts them first. */
  readonly strongerValues: 'larger' | 'smaller';
  readonly naming: SnpNaming;
}

/** Header and lines of one table format. */
export class TableLayout {
  private readonly snpWidth: number;
  private readonly locusTexts: (string | undefined)[] = [];

  private constructor(private readonly context: TableContext, private readonly sidecar: PreparedSidecar | null) {
    this.snpWidth = sidecar === null ? 0 : plinkSnpColumnWidth(sidecar.snps.id);
  }

  /**
   * The layout of `context.format`.
   * @throws UserError for tsv or ld without SNP loci (no sidecar), and ld for anything but 2-way r².
   */
  static of(context: TableContext): TableLayout {
    const sidecar = context.naming.preparedSidecar;
    if (context.format !== 'records' && sidecar === null) {
      throw new UserError(`--format ${context.format} prints chromosomes and positions: it needs the run's sidecar (a run of a PLINK fileset, VCF or prepared file, or --sidecar)`);
    }
    if (context.format === 'ld' && sidecar !== null && vectorsAreSamples(sidecar)) {
      throw new UserError('--format ld is PLINK\'s r² table between SNPs: these records are between samples (prepared with --individuals; use --format tsv)');
    }
    if (context.format === 'ld' && (context.metric !== 'r2' || context.numWay !== 2)) {
      throw new UserError(`--format ld is PLINK's r² table: these are ${context.numWay}-way ${context.metric ?? 'unknown-metric'} records (use --format tsv)`);
    }
    return new TableLayout(context, sidecar);
  }

  /** The header line. */
  header(): string {
    const { format, numWay, metric, naming } = this.context;
    if (format === 'records') return recordHeader(numWay, naming.hasNames ? (naming.vectorsAreSamples ? 'samples' : 'snps') : null);
    if (format === 'ld') return ldTableHeader(this.snpWidth, null);
    // Samples by their PLINK IDs (.kin0's FID1 IID1 FID2 IID2), SNPs by locus.
    const loci = SIDES.slice(0, numWay).flatMap((side) =>
      (naming.vectorsAreSamples ? [`FID_${side}`, `IID_${side}`] : [`CHR_${side}`, `BP_${side}`, `SNP_${side}`]));
    return `${[...loci, 'ENTRY', (metric ?? 'value').toUpperCase()].join('\t')}\n`;
  }

  /** One record's line; `record.snpIndices` in the order to print, entry bits in the same order. */
  line(record: NamedRecord): string {
    const { format, naming } = this.context;
    if (format === 'records') return formatNamedRecord(record, naming);
    const [a, b] = record.snpIndices;
    if (format === 'ld') return ldTableLineOfLoci(this.locusText(a), this.locusText(b), record.value, null);
    const loci = record.snpIndices.map((snpIdx) => this.locusText(snpIdx)).join('');
    return `${loci}${record.entry}\t${formatFloat32(record.value)}\n`;
  }

  /** A SNP's columns in this format, made on first use and kept (a table names each SNP in many rows). */
  private locusText(snpIdx: number): string {
    let text = this.locusTexts[snpIdx];
    if (text === undefined && this.context.naming.vectorsAreSamples) {
      const sample = (this.sidecar as PreparedSidecar).sampleNames?.[snpIdx];
      text = sample === undefined ? `0\t${this.context.naming.snpId(snpIdx)}\t` : `${sample.fid ?? '0'}\t${sample.iid}\t`;
      this.locusTexts[snpIdx] = text;
    }
    if (text === undefined) {
      const snps = (this.sidecar as PreparedSidecar).snps;
      const locus = { chromosome: snps.chrom[snpIdx], position: snps.pos[snpIdx], id: snps.id[snpIdx] };
      text = this.context.format === 'ld' ? ldLocusText(locus, this.snpWidth) : `${locus.chromosome}\t${locus.position}\t${locus.id}\t`;
      this.locusTexts[snpIdx] = text;
    }
    return text;
  }
}

/** `record` with its SNPs in position order (entry bits moved with them); `rankOf` gives a SNP's position rank. */
function inPositionOrder(record: NamedRecord, rankOf: (snpIdx: number) => number): NamedRecord {
  const order = record.snpIndices.map((_, w) => w).sort((a, b) => rankOf(record.snpIndices[a]) - rankOf(record.snpIndices[b]));
  return { snpIndices: order.map((w) => record.snpIndices[w]), entry: order.map((w) => record.entry[w]).join(''), value: record.value };
}

/** Position order of two records whose SNPs are in position order: ranks coordinate by coordinate, then entry. */
function compareByPosition(a: NamedRecord, b: NamedRecord, rankOf: (snpIdx: number) => number): number {
  for (let w = 0; w < a.snpIndices.length; w++) {
    const difference = rankOf(a.snpIndices[w]) - rankOf(b.snpIndices[w]);
    if (difference !== 0) return difference;
  }
  return a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0;
}

/** `records` in position order (`positionRanks`; SNP index order without a sidecar), each with its SNPs in that order. */
export function sortByPosition(records: readonly NamedRecord[], sidecar: PreparedSidecar | null): NamedRecord[] {
  const rankOfSnp = sidecar === null ? null : positionRanks(sidecar, sidecar.numVector).rankOfSnp;
  const rankOf = (snpIdx: number): number => (rankOfSnp === null ? snpIdx : rankOfSnp[snpIdx]);
  return records.map((record) => inPositionOrder(record, rankOf)).sort((a, b) => compareByPosition(a, b, rankOf));
}
