// Maps the global vector indices of metrics records back to SNPs: undoes a prepared file's permutation,
// names the SNPs, and puts each record's coordinates in SNP order (entry bits moving with them).
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { coordEntryBit, coordVectorIndex, readSidecar, vectorsAreSamples, type PreparedSidecar } from '../io/index.js';
import type { LoadedRunInfo } from './runInfoFile.js';

/** One record in SNP terms: SNP indices ascending (source-file order; stored order without a sidecar), entry bits in the same order. */
export interface NamedRecord {
  readonly snpIndices: readonly number[];
  /** Entry bits as text, one per coordinate, e.g. `01`. */
  readonly entry: string;
  readonly value: number;
}

/**
 * SNP names and the vector → SNP map of one prepared input; without a sidecar, vector = SNP, no names. Records naming
 * a vector past the run's count (known from the sidecar or the run-info file) are refused: a wrong file or `--way`.
 */
/**
 * How a record's coordinates are written (SPEC §7): `2·G + E` (vector G, entry bit E) for metrics with a table of
 * entries per tuple (CCC, DUO, r²), or the plain vector index for those with one value per tuple (Czekanowski, §8).
 */
export type CoordinateEncoding = 'vector-entry' | 'vector';

/** The encoding of a run's records by its metric (run.json's `metric`; null: unknown, the table form). */
export function coordinateEncodingOf(metric: string | null): CoordinateEncoding {
  return metric === 'czekanowski' || metric === 'epistasis' ? 'vector' : 'vector-entry';
}

/** The entry text of records with one value per tuple. */
export const NO_ENTRY = '-';

export class SnpNaming {
  private constructor(
    private readonly sidecar: PreparedSidecar | null, private readonly numVectorKnown: number | null,
    readonly coordinates: CoordinateEncoding = 'vector-entry',
  ) {}

  /**
   * Naming from a sidecar file, or the identity (no names) when `sidecarPath` is null; `numVector` is the run's vector
   * count when known (run.json), which the sidecar must have too.
   */
  static load(sidecarPath: string | null, numVector: number | null = null, coordinates: CoordinateEncoding = 'vector-entry'): SnpNaming {
    const sidecar = sidecarPath === null ? null : readSidecar(sidecarPath);
    if (sidecar !== null && numVector !== null && sidecar.numVector !== numVector) {
      throw new UserError(`sidecar ${sidecarPath} has ${sidecar.numVector} SNPs but the run has ${numVector} vectors: wrong sidecar?`);
    }
    return new SnpNaming(sidecar, sidecar?.numVector ?? numVector, coordinates);
  }

  /** The naming for metrics files of the run `info` (null: unknown): from `--sidecar` when given, else the run's sidecar. */
  static forRun(info: LoadedRunInfo | null, sidecarOption: string | undefined): SnpNaming {
    return SnpNaming.load(sidecarOption ?? info?.sidecarPath ?? null, info?.numVector ?? null, coordinateEncodingOf(info?.metric ?? null));
  }

  /** The vector a record coordinate names. */
  vectorOfCoord(coord: number): number {
    return this.coordinates === 'vector' ? coord : coordVectorIndex(coord);
  }

  /** The entry bit of a record coordinate (0 where records carry none). */
  entryBitOfCoord(coord: number): number {
    return this.coordinates === 'vector' ? 0 : coordEntryBit(coord);
  }

  get hasNames(): boolean {
    return this.sidecar !== null;
  }

  /** SNP index (source order) of packed vector `vectorIdx`. */
  snpIndexOf(vectorIdx: number): number {
    const sidecar = this.sidecar;
    if (this.numVectorKnown !== null && vectorIdx >= this.numVectorKnown) {
      throw new UserError(sidecar === null
        ? `a metrics record names vector ${vectorIdx}, but the run has ${this.numVectorKnown} vectors: wrong file or --way?`
        : `a metrics record names vector ${vectorIdx}, but the sidecar has ${sidecar.numVector} ${vectorsAreSamples(sidecar) ? 'samples' : 'SNPs'}: wrong sidecar, file or --way?`);
    }
    if (sidecar === null) return vectorIdx;
    return sidecar.vectorOrder === null ? vectorIdx : sidecar.vectorOrder.snpOfVector[vectorIdx];
  }

  /** Whether the vectors are samples (`prepare --individuals`): records then name samples, not SNPs. */
  get vectorsAreSamples(): boolean {
    return this.sidecar !== null && vectorsAreSamples(this.sidecar);
  }

  /** The ID of SNP `snpIdx` (source order) — of sample `snpIdx` (FID_IID) when the vectors are samples; its index as text without a sidecar. */
  snpId(snpIdx: number): string {
    if (this.sidecar === null) return String(snpIdx);
    return this.vectorsAreSamples ? this.sidecar.sampleIds[snpIdx] : this.sidecar.snps.id[snpIdx];
  }

  /** Where SNP `snpIdx` is and its alleles, e.g. `1:12345 A/G` (allele1/allele2); null without a sidecar or for samples. */
  snpLocus(snpIdx: number): string | null {
    const snps = this.vectorsAreSamples ? undefined : this.sidecar?.snps;
    return snps === undefined ? null : `${snps.chrom[snpIdx]}:${snps.pos[snpIdx]} ${snps.allele1[snpIdx]}/${snps.allele2[snpIdx]}`;
  }

  /** The sidecar, when there is one. */
  get preparedSidecar(): PreparedSidecar | null {
    return this.sidecar;
  }

  /** Record `r` of a chunk in SNP terms. */
  namedRecord(coords: Uint32Array, recordIdx: number, numWay: NumWay, value: number): NamedRecord {
    const pairs: Array<[number, number]> = [];
    for (let w = 0; w < numWay; w++) {
      const coord = coords[recordIdx * numWay + w];
      pairs.push([this.snpIndexOf(this.vectorOfCoord(coord)), this.entryBitOfCoord(coord)]);
    }
    // Without a sidecar the stored order is kept, so plain dumps show the files as they are.
    if (this.sidecar !== null) pairs.sort((a, b) => a[0] - b[0]);
    // One value per tuple: no entry to name.
    const entry = this.coordinates === 'vector' ? NO_ENTRY : pairs.map((pair) => pair[1]).join('');
    return { snpIndices: pairs.map((pair) => pair[0]), entry, value };
  }
}
