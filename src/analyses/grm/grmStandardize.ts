// plink2's standardized genotypes of the GRM (plink2_matrix_calc.cc ExpandCenteredVarmaj, plink2_filter.cc
// ComputeAlleleFreqs): per SNP, the value of each 2-bit code, z = intercept + g·slope with g the A1 (plink2's ALT)
// copies, slope = 1/√(2·p_ref·p_alt) (1 with `cov`), intercept = −2·p_alt·slope, and 0 for a missing call; p_ref
// from the founders' calls (all samples with --nonfounders), 0.5 when none is called. Doubles in plink2's order.
import { UserError } from '../../core/errors.js';

/** plink2's kSmallEpsilon (2^−44): a variance not above it is a monomorphic SNP. */
const SMALL_EPSILON = 2 ** -44;

/** Per byte value: its four 2-bit codes' counts of code `c` as four 8-bit lanes. */
const LANES_OF_CODE = [0, 1, 2, 3].map((code) => Uint32Array.from({ length: 256 }, (_, b) => {
  let lanes = 0;
  for (let f = 0; f < 4; f++) if (((b >> (2 * f)) & 3) === code) lanes |= 1 << (8 * f);
  return lanes;
}));
/** 8-bit lanes are emptied every 255 rows, before they can overflow. */
const MAX_LANE_ROWS = 255;
/** Codes counted (SPEC §1): 00 no A1 copy, 01 het, 11 two copies; 10 (missing) is what remains. */
const COUNTED_CODES = [0, 1, 3] as const;

/** Per-SNP counts of codes 00, 01 and 11 over the sample-major rows added (SPEC §1 codes, 4 SNPs per byte). */
export class GenotypeCodeCounter {
  /** counts[c][s]: rows with code COUNTED_CODES[c] at SNP s. */
  readonly counts: readonly [Uint32Array, Uint32Array, Uint32Array];
  numRows = 0;
  private readonly lanes: Uint32Array[];
  private rowsInLanes = 0;

  constructor(private readonly numSnp: number) {
    this.counts = [new Uint32Array(numSnp), new Uint32Array(numSnp), new Uint32Array(numSnp)];
    this.lanes = COUNTED_CODES.map(() => new Uint32Array(Math.ceil(numSnp / 4)));
  }

  /** Adds the row of packed bytes at `rows[rowStart …]`. */
  add(rows: Uint8Array, rowStart: number): void {
    for (let c = 0; c < COUNTED_CODES.length; c++) {
      const lanes = this.lanes[c];
      const table = LANES_OF_CODE[COUNTED_CODES[c]];
      for (let k = 0; k < lanes.length; k++) lanes[k] += table[rows[rowStart + k]];
    }
    this.numRows++;
    if (++this.rowsInLanes === MAX_LANE_ROWS) this.flush();
  }

  /** Empties the lanes into the counts (call before reading them). */
  flush(): void {
    for (let c = 0; c < COUNTED_CODES.length; c++) {
      const lanes = this.lanes[c];
      const counts = this.counts[c];
      for (let s = 0; s < this.numSnp; s++) counts[s] += (lanes[s >> 2] >>> (8 * (s & 3))) & 0xff;
      lanes.fill(0);
    }
    this.rowsInLanes = 0;
  }

  /** Calls missing over all SNPs. */
  numMissing(): number {
    let called = 0;
    for (const counts of this.counts) for (let s = 0; s < this.numSnp; s++) called += counts[s];
    return this.numRows * this.numSnp - called;
  }
}

/** How the GRM standardizes (plink2's `--make-rel` modifiers). */
export interface GrmStandardizeOptions {
  /** `cov`: centred only (slope 1), not divided by the standard deviation. */
  readonly covariance: boolean;
}

/** Names a SNP in messages (its ID and place). */
export type SnpNamer = (snp: number) => string;

/**
 * The value of each code at each SNP: `values[4·s + code]` (code 10, missing, is 0). `founderCounts` gives the
 * allele frequencies, `sampleCounts` (every sample of the GRM) plink2's check of a zero-variance SNP: it must be
 * monomorphic in the founders' major allele, else plink2 refuses the data, and so does this.
 * @throws UserError naming the first SNP whose founder frequency is 0 or 1 but whose samples carry the other allele.
 */
export function grmCodeValues(founderCounts: GenotypeCodeCounter, sampleCounts: GenotypeCodeCounter, options: GrmStandardizeOptions,
  snpName: SnpNamer): Float64Array {
  const numSnp = founderCounts.counts[0].length;
  const values = new Float64Array(4 * numSnp);
  const [homRef, het, homAlt] = founderCounts.counts;
  for (let s = 0; s < numSnp; s++) {
    // plink2 counts allele dosages; REF (A2) copies over all alleles of the called founders.
    const refCopies = 2 * homRef[s] + het[s];
    const totalCopies = 2 * (homRef[s] + het[s] + homAlt[s]);
    const refFreq = totalCopies === 0 ? 1.0 / 2 : refCopies * (1.0 / totalCopies);
    const altFreq = 1.0 - refFreq;
    let slope = 1.0;
    if (!options.covariance) {
      const variance = 2 * refFreq * altFreq;
      if (!(variance > SMALL_EPSILON)) {
        const [allHomRef, allHet, allHomAlt] = sampleCounts.counts;
        const otherAllele = allHet[s] !== 0 || (refFreq > 0.5 ? allHomAlt[s] !== 0 : allHomRef[s] !== 0);
        if (otherAllele) {
          throw new UserError(`plink: --make-rel/--make-grm-bin: ${snpName(s)} has founder minor allele frequency 0 but is not ` +
            'monomorphic (plink2 refuses it too: filter it out, e.g. with --maf)');
        }
        continue;
      }
      slope = 1.0 / Math.sqrt(variance);
    }
    const intercept = -2 * altFreq * slope;
    values[4 * s] = intercept;
    values[4 * s + 1] = intercept + slope;
    values[4 * s + 3] = intercept + 2 * slope;
  }
  return values;
}
