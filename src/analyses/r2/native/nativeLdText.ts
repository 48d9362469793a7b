// The `.ld` table's bulk functions of r²'s addon (src/ldText.h, src/ldTextBinding.cc): a span of SNPs' packed codes
// made into planes, each listed pair's double r² or 3×3 table by popcounts, and the table's lines in one byte buffer.

/** A span of consecutive SNPs' packed 2-bit rows (packedVectorFile.ts) and pairs of global SNP indices. */
export interface LdSpanPairs {
  /** `numSnps` rows of `rowBytes` bytes: SNPs snpFirst … snpFirst + numSnps − 1. */
  readonly codes: Uint8Array;
  readonly snpFirst: number;
  readonly numSnps: number;
  readonly numField: number;
  readonly rowBytes: number;
  /** SNP A, SNP B per pair (global indices). */
  readonly pairs: Uint32Array;
  readonly numPairs: number;
}

/** A chunk of lines to write. */
export interface LdTextJob extends LdSpanPairs {
  /** Each pair's value (the R2 column); absent: each pair's dosage r² from the span's planes. */
  readonly values?: Float64Array;
  /** The extra column (D or DP) per pair, when the table has one. */
  readonly extras?: Float64Array;
  /** PLINK's filter: lines whose value is ≥ minR2 (NaN never). */
  readonly minR2: number;
  /**
   * Every SNP's locus columns (ldLocusText), concatenated, then 64 bytes of room; SNP s's at
   * lociBytes[lociOffsets[s] … lociOffsets[s + 1]).
   */
  readonly lociBytes: Uint8Array;
  readonly lociOffsets: Uint32Array;
  /** plinkPowersOfTen(): the number text's powers of ten, the JS formatter's doubles. */
  readonly powersOfTen: Float64Array;
  /** Tallies by 64-bit popcounts even where AVX-512 runs (tests compare the two). */
  readonly scalar?: boolean;
  /** At least numPairs × the longest line's bytes + 64; not touched by JS until the promise settles. */
  readonly out: Uint8Array;
}

/** The addon's `.ld` functions. */
export interface NativeLdTextFunctions {
  /** Each pair's 3×3 table into `counts` (9 per pair, counts[3a + b]: a copies of A's allele 1, b of B's). */
  ldTablesOfPairs(job: LdSpanPairs, counts: Uint32Array): void;
  /** Writes the job's lines into `job.out` on a pool thread; resolves with the bytes and lines written. */
  ldTableText(job: LdTextJob): Promise<{ readonly numBytes: number; readonly numLines: number }>;
}
