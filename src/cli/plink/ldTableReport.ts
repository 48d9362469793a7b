// PLINK's `.ld` table: its header, then the lines of the pairs in PLINK's order (ldTablePairs.ts: a same-chromosome
// window's pairs straight from the window, or an inter-chr run's records sorted by position), each pair's values
// recomputed in double precision from the genotypes (the records hold float32; PLINK prints doubles, and the float32
// would change the 6th digit of ~0.8 % of values), PLINK's filter |R2| ≥ --ld-window-r2 and its line format
// (ldTableChunks.ts: natively in bulk where r²'s addon is built).
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { ldTableHeader, plinkSnpColumnWidth, type PreparedSidecar, type TextOutput } from '../../io/index.js';
import { ldLineWriter, type LdTableOptions } from './ldTableChunks.js';
import { recordPairBatches, windowPairBatches, type LdPairBatch, type RecordPairSource } from './ldTablePairs.js';

export type { LdTableOptions } from './ldTableChunks.js';

/**
 * Pairs per batch: ~1.2 MB of text, still in the shared cache when written. Batches of 2^16 – 2^18 pairs (5 – 20 MB)
 * made the kernel's copy into the page cache read them from memory: 1.7 – 3.6 s of system time for the bench's 1.5 GB
 * on this VM's ext4, against 0.55 s with 2^14 (plink1.9, writing 128 KB at a time: 0.55 s).
 */
const PAIRS_PER_BATCH = 1 << 14;

/** What the table is made of. */
export interface LdTableSource {
  /** The prepared input's sidecar (vectors in SNP order: prepared without --permute) and its packed file. */
  readonly sidecar: PreparedSidecar;
  readonly packedPath: string;
  /** The pairs: every pair of a same-chromosome window, or a run's records. */
  readonly pairs: { readonly window: PairWindowLimits } | { readonly records: RecordPairSource };
  /** Batches formatted at once. */
  readonly threads: number;
  /** Pairs per batch (tests make it small); default 2^14. */
  readonly pairsPerBatch?: number;
  /** The JS path even where the addon is built (tests compare the two). */
  readonly forceJs?: boolean;
  /** Batches whose SNPs span more packed bytes take the JS path (tests make it small). */
  readonly maxSpanBytes?: number;
}

/** Writes the `.ld` table to `output` (not committed); returns the number of lines below the header. */
export async function writeLdTable(source: LdTableSource, options: LdTableOptions, output: TextOutput): Promise<number> {
  const { sidecar } = source;
  const snpWidth = plinkSnpColumnWidth(sidecar.snps.id);
  await output.write(ldTableHeader(snpWidth, options.dprime === null ? null : options.dprime === 'd' ? 'D' : 'DP'));
  const pairsPerBatch = source.pairsPerBatch ?? PAIRS_PER_BATCH;
  const batches: Iterable<LdPairBatch> = 'window' in source.pairs
    ? windowPairBatches(source.pairs.window, pairsPerBatch)
    : recordPairBatches(source.pairs.records, sidecar, pairsPerBatch);
  const writer = ldLineWriter(
    { sidecar, packedPath: source.packedPath, snpWidth, threads: source.threads, forceJs: source.forceJs, maxSpanBytes: source.maxSpanBytes }, options, output);
  try {
    for (const batch of batches) await writer.add(batch);
    return await writer.finish();
  } finally {
    writer.close();
  }
}
