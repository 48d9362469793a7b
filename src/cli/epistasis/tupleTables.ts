// The contingency tables of a few tuples, straight from the packed genotypes: what the epistasis command prints for
// its top-N and what it checks the engine's values of those tuples against.
import { packedVectorSlabOf, readPackedVectorSlab } from '../../io/index.js';

/** Genotype of each sample of one SNP: 0, 1, 2 copies of allele 1, or MISSING_GENOTYPE. */
export const MISSING_GENOTYPE = 3;

/** A tuple's 3^k × 2 table: `controls[c]`, `cases[c]`, cell c = Σ g_t·3^(k−1−t), the first SNP slowest. */
export interface TupleTable {
  readonly controls: number[];
  readonly cases: number[];
}

/** Where packed vectors (SPEC §1) lie: a packed file, or memory (an input prepared into memory). */
export type PackedGenotypes = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'memory'; readonly packed: Uint8Array };

/** Genotypes of SNPs read from packed vectors on demand, each SNP once. */
export class GenotypeRows {
  private readonly rows = new Map<number, Uint8Array>();
  /** `byteGenotypes[4·byte + k]`: the genotype of the k-th field (2 bits, LSB first) of a packed byte. */
  private readonly byteGenotypes = new Uint8Array(4 * 256);

  /** `sparse`: code 10 is a missing call (otherwise SPEC §1 counts it like 01). */
  constructor(private readonly packed: PackedGenotypes, private readonly numField: number, private readonly sparse: boolean) {
    for (let byte = 0; byte < 256; byte++) {
      for (let k = 0; k < 4; k++) {
        const code = (byte >> (2 * k)) & 3;
        this.byteGenotypes[4 * byte + k] = code === 0b00 ? 0 : code === 0b11 ? 2 : code === 0b01 || !this.sparse ? 1 : MISSING_GENOTYPE;
      }
    }
  }

  genotypesOf(vectorIdx: number): Uint8Array {
    let genotypes = this.rows.get(vectorIdx);
    if (genotypes === undefined) {
      const packed = this.packed.kind === 'file'
        ? readPackedVectorSlab(this.packed.path, this.numField, vectorIdx, 1, 0, this.numField)
        : packedVectorSlabOf(this.packed.packed, this.numField, vectorIdx, 1, 0, this.numField);
      // Four fields per byte from the table (the last byte's unused fields fall past the row and are cut).
      const padded = new Uint8Array(4 * Math.ceil(this.numField / 4));
      const table = this.byteGenotypes;
      for (let b = 0, f = 0; f < padded.length; b++, f += 4) {
        const t = 4 * packed[b];
        padded[f] = table[t];
        padded[f + 1] = table[t + 1];
        padded[f + 2] = table[t + 2];
        padded[f + 3] = table[t + 3];
      }
      genotypes = padded.subarray(0, this.numField);
      this.rows.set(vectorIdx, genotypes);
    }
    return genotypes;
  }
}

/**
 * The table of `tuple` over samples [0, numControls) as controls and the rest as cases; a sample missing at any SNP is
 * left out. A pass per SNP over typed arrays gives each sample's cell (and whether a call is missing), then one pass
 * per class counts them: the 2-way top-N of 262,144 samples took ~5 ms a tuple with a loop over SNPs per sample.
 */
export function tupleTable(rows: GenotypeRows, tuple: readonly number[], numControls: number, numField: number): TupleTable {
  const numCell = 3 ** tuple.length;
  // Cells of up to 4 SNPs fit a byte, a missing call's 3 included (3 + 3·(3 + 3·(3 + 3·3)) = 120).
  if (tuple.length > 4) throw new RangeError(`tuples of ${tuple.length} SNPs: at most 4`);
  if (tuple.length === 2) return pairTable(rows.genotypesOf(tuple[0]), rows.genotypesOf(tuple[1]), numControls, numField);
  const cells = new Uint8Array(numField);
  // A missing call is genotype 3: both its bits set; any such SNP marks the sample.
  const missing = new Uint8Array(numField);
  for (const vectorIdx of tuple) {
    const g = rows.genotypesOf(vectorIdx);
    for (let f = 0; f < numField; f++) {
      const genotype = g[f];
      cells[f] = 3 * cells[f] + genotype;
      missing[f] |= genotype & (genotype >> 1);
    }
  }
  const countCells = (first: number, end: number): number[] => {
    const counts = new Float64Array(numCell + 1);
    // Missing samples go to the extra cell numCell, which is dropped.
    for (let f = first; f < end; f++) counts[missing[f] === 0 ? cells[f] : numCell]++;
    return Array.from(counts.subarray(0, numCell));
  };
  const split = Math.min(numControls, numField);
  return { controls: countCells(0, split), cases: countCells(split, numField) };
}

/**
 * tupleTable of a pair in one pass per class, each sample's cell counted as it is made: a search rescores its ~70
 * candidate pairs once each, too few calls for the optimizing compiler, where the three passes took ~0.2 ms a pair
 * (15 ms on the 2-way run's critical path).
 */
function pairTable(first: Uint8Array, second: Uint8Array, numControls: number, numField: number): TupleTable {
  // Cells 0–8 and, at 9, the samples missing at either SNP (dropped).
  const counts = new Float64Array(20);
  const split = Math.min(numControls, numField);
  for (const [begin, end, base] of [[0, split, 0], [split, numField, 10]] as const) {
    for (let f = begin; f < end; f++) {
      const a = first[f];
      const b = second[f];
      counts[base + ((a & (a >> 1)) | (b & (b >> 1)) ? 9 : 3 * a + b)]++;
    }
  }
  return { controls: Array.from(counts.subarray(0, 9)), cases: Array.from(counts.subarray(10, 19)) };
}
