// The contingency tables of a few tuples, straight from the packed genotypes: what the epistasis command prints for
// its top-N and what it checks the engine's values of those tuples against.
import { readPackedVectorSlab } from '../../io/index.js';

/** Genotype of each sample of one SNP: 0, 1, 2 copies of allele 1, or MISSING_GENOTYPE. */
export const MISSING_GENOTYPE = 3;

/** A tuple's 3^k × 2 table: `controls[c]`, `cases[c]`, cell c = Σ g_t·3^(k−1−t), the first SNP slowest. */
export interface TupleTable {
  readonly controls: number[];
  readonly cases: number[];
}

/** Genotypes of SNPs read from a packed file on demand, each SNP once. */
export class GenotypeRows {
  private readonly rows = new Map<number, Uint8Array>();

  /** `sparse`: code 10 is a missing call (otherwise SPEC §1 counts it like 01). */
  constructor(private readonly packedPath: string, private readonly numField: number, private readonly sparse: boolean) {}

  genotypesOf(vectorIdx: number): Uint8Array {
    let genotypes = this.rows.get(vectorIdx);
    if (genotypes === undefined) {
      const packed = readPackedVectorSlab(this.packedPath, this.numField, vectorIdx, 1, 0, this.numField);
      genotypes = new Uint8Array(this.numField);
      for (let f = 0; f < this.numField; f++) {
        const code = (packed[f >> 2] >> (2 * (f & 3))) & 3;
        genotypes[f] = code === 0b00 ? 0 : code === 0b11 ? 2 : code === 0b01 || !this.sparse ? 1 : MISSING_GENOTYPE;
      }
      this.rows.set(vectorIdx, genotypes);
    }
    return genotypes;
  }
}

/** The table of `tuple` over samples [0, numControls) as controls and the rest as cases; a sample missing at any SNP is left out. */
export function tupleTable(rows: GenotypeRows, tuple: readonly number[], numControls: number, numField: number): TupleTable {
  const numCell = 3 ** tuple.length;
  const controls = new Array<number>(numCell).fill(0);
  const cases = new Array<number>(numCell).fill(0);
  const genotypes = tuple.map((vectorIdx) => rows.genotypesOf(vectorIdx));
  for (let f = 0; f < numField; f++) {
    let cell = 0;
    let missing = false;
    for (const g of genotypes) {
      if (g[f] === MISSING_GENOTYPE) missing = true;
      cell = 3 * cell + g[f];
    }
    if (missing) continue;
    if (f < numControls) controls[cell]++;
    else cases[cell]++;
  }
  return { controls, cases };
}
