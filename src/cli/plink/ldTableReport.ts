// PLINK's `.ld` table from a run's pair records: the pairs sorted by position (bounded memory), each pair's values
// recomputed in double precision from its 3×3 genotype table (the records hold float32; PLINK prints doubles), then
// PLINK's filter |R2| ≥ --ld-window-r2 and its line format.
import {
  coordVectorIndex, ldLocusText, ldTableHeader, ldTableLineOfLoci, plinkSnpColumnWidth, readMetricsFileChunks, RowSorter,
  type PreparedSidecar, type TextOutput,
} from '../../io/index.js';
import { positionRanks } from '../recordTable.js';
import { LineBatch } from '../recordTableWriter.js';
import { GenotypeTables } from './genotypeTables.js';
import { dosageR2, haplotypeLd, type DprimeKind } from './twoLocusLd.js';

/** What the table is made of. */
export interface LdTableSource {
  /** The run's 2-way r² metrics files (any order; one record per pair). */
  readonly recordFiles: readonly string[];
  /** The prepared input's sidecar (vectors in SNP order: prepared without --permute) and its packed file. */
  readonly sidecar: PreparedSidecar;
  readonly packedPath: string;
  /** Where the sort's scratch runs go. */
  readonly scratchParent: string;
}

/** What the table shows. */
export interface LdTableOptions {
  readonly dprime: DprimeKind | null;
  readonly minR2: number;
}

/** Writes the `.ld` table to `output` (not committed); returns the number of lines below the header. */
export async function writeLdTable(source: LdTableSource, options: LdTableOptions, output: TextOutput): Promise<number> {
  const { sidecar } = source;
  const { rankOfSnp, snpOfRank } = positionRanks(sidecar, sidecar.numVector);
  const snpWidth = plinkSnpColumnWidth(sidecar.snps.id);
  const sorter = new RowSorter({ rowWords: 2, numKeyWords: 2, scratchParent: source.scratchParent });
  const tables = new GenotypeTables(source.packedPath, sidecar.numField);
  try {
    const row = new Uint32Array(2);
    for (const file of source.recordFiles) {
      for (const chunk of readMetricsFileChunks(file, 2)) {
        for (let r = 0; r < chunk.numRecords; r++) {
          const rankA = rankOfSnp[coordVectorIndex(chunk.coords[2 * r])];
          const rankB = rankOfSnp[coordVectorIndex(chunk.coords[2 * r + 1])];
          row[0] = Math.min(rankA, rankB);
          row[1] = Math.max(rankA, rankB);
          sorter.add(row);
        }
      }
    }
    await output.write(ldTableHeader(snpWidth, options.dprime === null ? null : options.dprime === 'd' ? 'D' : 'DP'));
    const counts = new Float64Array(9);
    const { snps } = sidecar;
    // Each SNP's columns, made once: a table names each SNP in many lines.
    const locusTexts: (string | undefined)[] = [];
    const locusText = (snpIdx: number): string =>
      (locusTexts[snpIdx] ??= ldLocusText({ chromosome: snps.chrom[snpIdx], position: snps.pos[snpIdx], id: snps.id[snpIdx] }, snpWidth));
    const lines = new LineBatch(output);
    for (const batch of sorter.sorted()) {
      for (let r = 0; r < batch.numRows; r++) {
        const snpA = snpOfRank[batch.rows[2 * r]];
        const snpB = snpOfRank[batch.rows[2 * r + 1]];
        tables.table(snpA, snpB, counts);
        let r2: number;
        let extra: number | null = null;
        if (options.dprime === null) {
          r2 = dosageR2(counts);
        } else {
          const ld = haplotypeLd(counts, options.dprime);
          r2 = Math.abs(ld.signedR2);
          extra = ld.extra;
        }
        // PLINK's test: NaN never passes.
        if (!(r2 >= options.minR2)) continue;
        if (lines.add(ldTableLineOfLoci(locusText(snpA), locusText(snpB), r2, extra))) await lines.flush();
      }
    }
    await lines.flush();
    return lines.numWritten;
  } finally {
    tables.close();
    sorter.dispose();
  }
}
