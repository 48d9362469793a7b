// The pairs of a `--metric king` run as plink2's table needs them: each pair's exact counts from its four records
// (analyses/king: hethet, het-hom, hom-het, ibs0, each a float32 count · 2^-22), put in plink2's order (the later
// sample first, then the earlier), and the number of SNPs both called (NSNP) from the samples' missing calls.
import { closeSync } from 'node:fs';
import { KING_COUNT_SCALE, KING_ENTRY } from '../../analyses/index.js';
import {
  coordEntryBit, coordVectorIndex, openForReading, packedBytesPerVector, readExactly, readMetricsFileChunks, RowSorter,
} from '../../io/index.js';
import { popcount32 } from '../../core/bitCodes.js';

/** Words of a sorted pair row: ID1 (the later sample), ID2, hethet, het1Hom2, hom1Het2, ibs0. */
export const PAIR_ROW_WORDS = 6;

/** One pair's counts, `1` being ID1 (the later sample) and `2` ID2. */
export interface KingPairCounts {
  readonly hethet: number;
  /** SNPs where ID1 is heterozygous and ID2 homozygous. */
  readonly het1Hom2: number;
  readonly hom1Het2: number;
  readonly ibs0: number;
}

/**
 * Reads the run's record files into a sorter of pair rows (PAIR_ROW_WORDS words each, keyed by ID1 then ID2: plink2's
 * line order). @throws Error when a pair's four records are not together (not a KING run's files).
 */
export function sortedKingPairs(recordFiles: readonly string[], scratchParent: string): RowSorter {
  const sorter = new RowSorter({ rowWords: PAIR_ROW_WORDS, numKeyWords: 2, scratchParent });
  const row = new Uint32Array(PAIR_ROW_WORDS);
  const count = new Float64Array(4);
  for (const file of recordFiles) {
    let pending = 0;
    let first = -1, second = -1;
    for (const chunk of readMetricsFileChunks(file, 2)) {
      for (let r = 0; r < chunk.numRecords; r++) {
        const a = chunk.coords[2 * r];
        const b = chunk.coords[2 * r + 1];
        const entry = 2 * coordEntryBit(a) + coordEntryBit(b);
        if (entry !== pending) throw new Error(`${file}: record ${r} is entry ${entry} of its pair, not ${pending} (not a KING run's records)`);
        if (pending === 0) {
          first = coordVectorIndex(a);
          second = coordVectorIndex(b);
        } else if (coordVectorIndex(a) !== first || coordVectorIndex(b) !== second) {
          throw new Error(`${file}: record ${r} is not of the pair of the records before it`);
        }
        count[entry] = Math.round(chunk.values[r] / KING_COUNT_SCALE);
        if (++pending < 4) continue;
        pending = 0;
        // Entry hetHom is (first het, second hom); ID1 is the later sample.
        const firstIsId1 = first > second;
        row[0] = firstIsId1 ? first : second;
        row[1] = firstIsId1 ? second : first;
        row[2] = count[KING_ENTRY.hethet];
        row[3] = firstIsId1 ? count[KING_ENTRY.hetHom] : count[KING_ENTRY.homHet];
        row[4] = firstIsId1 ? count[KING_ENTRY.homHet] : count[KING_ENTRY.hetHom];
        row[5] = count[KING_ENTRY.ibs0];
        sorter.add(row);
      }
    }
    if (pending !== 0) throw new Error(`${file}: its last pair has ${pending} of its 4 records`);
  }
  return sorter;
}

/** Counts of a sorted pair row at `at`. */
export function pairCountsAt(rows: Uint32Array, at: number): KingPairCounts {
  return { hethet: rows[at + 2], het1Hom2: rows[at + 3], hom1Het2: rows[at + 4], ibs0: rows[at + 5] };
}

/**
 * Each sample's missing calls (code `10`) as a bit set over the SNPs, from a sample-major packed file, and the words
 * that hold any: NSNP of a pair is numSnp − missing₁ − missing₂ + both missing, the last taken over the nonzero words
 * of the sample with fewer (missing calls are rare, so this is far below a pass over every word). A sample's row is
 * read when a pair first needs it: a filtered table names few samples, and a pass over every row (20,000 samples ×
 * 50,000 SNPs: 250 MB) would cost more than the GPU's whole run. `close()` releases the file.
 */
export class MissingCalls {
  private readonly bits: (Uint32Array | undefined)[];
  private readonly nonzeroWords: (Uint32Array | undefined)[];
  private readonly numMissing: Uint32Array;
  private readonly fd: number;
  /** One sample's row, as bytes and (whole words) as 32-bit words of 16 codes. */
  private readonly row: Uint8Array;
  private readonly rowWords: Uint32Array;

  constructor(private readonly packedPath: string, private readonly layout: { readonly numSample: number; readonly numSnp: number }) {
    const { numSample, numSnp } = layout;
    this.bits = new Array<Uint32Array | undefined>(numSample);
    this.nonzeroWords = new Array<Uint32Array | undefined>(numSample);
    this.numMissing = new Uint32Array(numSample);
    this.row = new Uint8Array(4 * Math.ceil(packedBytesPerVector(numSnp) / 4));
    this.rowWords = new Uint32Array(this.row.buffer);
    this.fd = openForReading(packedPath);
  }

  /** SNPs both samples called. */
  nsnp(sampleA: number, sampleB: number): number {
    const [nonzeroA, nonzeroB] = [this.nonzeroWordsOf(sampleA), this.nonzeroWordsOf(sampleB)];
    const [fewer, other] = nonzeroA.length <= nonzeroB.length ? [sampleA, sampleB] : [sampleB, sampleA];
    const fewerBits = this.bits[fewer] as Uint32Array;
    const otherBits = this.bits[other] as Uint32Array;
    let both = 0;
    for (const w of fewer === sampleA ? nonzeroA : nonzeroB) both += popcount32(fewerBits[w] & otherBits[w]);
    return this.layout.numSnp - this.numMissing[sampleA] - this.numMissing[sampleB] + both;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The sample's nonzero words, reading its row the first time. */
  private nonzeroWordsOf(sample: number): Uint32Array {
    const known = this.nonzeroWords[sample];
    if (known !== undefined) return known;
    const { numSnp } = this.layout;
    const bytesPerSample = packedBytesPerVector(numSnp);
    // Pad bytes past the row stay zero (no code 10 there: pad fields are zero too).
    this.row.fill(0);
    readExactly(this.fd, this.packedPath, this.row, bytesPerSample, sample * bytesPerSample);
    const words = new Uint32Array(Math.ceil(numSnp / 32));
    let missing = 0;
    for (let w = 0; w < this.rowWords.length; w++) {
      const codes = this.rowWords[w];
      // Code 10 of field k: bit 2k + 1 set, bit 2k clear; then the 16 even bits packed into 16 (field order).
      let m = (codes >>> 1) & ~codes & 0x55555555;
      if (m === 0) continue;
      m = (m | (m >>> 1)) & 0x33333333;
      m = (m | (m >>> 2)) & 0x0f0f0f0f;
      m = (m | (m >>> 4)) & 0x00ff00ff;
      m = (m | (m >>> 8)) & 0x0000ffff;
      words[w >> 1] |= m << (16 * (w & 1));
      missing += popcount32(m);
    }
    const nonzero = Uint32Array.from(words.keys()).filter((w) => words[w] !== 0);
    this.bits[sample] = words;
    this.nonzeroWords[sample] = nonzero;
    this.numMissing[sample] = missing;
    return nonzero;
  }
}
