// Maps the global vector indices of metrics records back to SNPs: undoes a prepared file's permutation,
// names the SNPs, and puts each record's coordinates in SNP order (entry bits moving with them).
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { coordEntryBit, coordVectorIndex, readSidecar, type PreparedSidecar } from '../io/index.js';
import { findRunInfoFor } from './runInfoFile.js';

/** One record in SNP terms: SNP indices ascending (source-file order; stored order without a sidecar), entry bits in the same order. */
export interface NamedRecord {
  readonly snpIndices: readonly number[];
  /** Entry bits as text, one per coordinate, e.g. `01`. */
  readonly entry: string;
  readonly value: number;
}

/** SNP names and the vector → SNP map of one prepared input; without a sidecar, vector = SNP, no names. */
export class SnpNaming {
  private constructor(private readonly sidecar: PreparedSidecar | null) {}

  /** Naming from a sidecar file, or the identity (no names) when `sidecarPath` is null. */
  static load(sidecarPath: string | null): SnpNaming {
    return new SnpNaming(sidecarPath === null ? null : readSidecar(sidecarPath));
  }

  /**
   * The naming for `metricsFiles`: from `--sidecar` when given, otherwise from the run-info file found
   * beside the first file (null sidecar: identity).
   */
  static forMetricsFiles(metricsFiles: readonly string[], sidecarOption: string | undefined): SnpNaming {
    if (sidecarOption !== undefined) return SnpNaming.load(sidecarOption);
    const info = metricsFiles.length === 0 ? null : findRunInfoFor(metricsFiles[0]);
    return SnpNaming.load(info?.sidecarPath ?? null);
  }

  get hasNames(): boolean {
    return this.sidecar !== null;
  }

  /** SNP index (source order) of packed vector `vectorIdx`. */
  snpIndexOf(vectorIdx: number): number {
    const sidecar = this.sidecar;
    if (sidecar === null) return vectorIdx;
    if (vectorIdx >= sidecar.numVector) {
      throw new UserError(`a metrics record names vector ${vectorIdx}, but the sidecar has ${sidecar.numVector} SNPs: wrong sidecar?`);
    }
    return sidecar.vectorOrder === null ? vectorIdx : sidecar.vectorOrder.snpOfVector[vectorIdx];
  }

  /** The ID of SNP `snpIdx` (source order); its index as text without a sidecar. */
  snpId(snpIdx: number): string {
    return this.sidecar === null ? String(snpIdx) : this.sidecar.snps.id[snpIdx];
  }

  /** Where SNP `snpIdx` is and its alleles, e.g. `1:12345 A/G` (allele1/allele2); null without a sidecar. */
  snpLocus(snpIdx: number): string | null {
    const snps = this.sidecar?.snps;
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
      pairs.push([this.snpIndexOf(coordVectorIndex(coord)), coordEntryBit(coord)]);
    }
    // Without a sidecar the stored order is kept, so plain dumps show the files as they are.
    if (this.sidecar !== null) pairs.sort((a, b) => a[0] - b[0]);
    return { snpIndices: pairs.map((pair) => pair[0]), entry: pairs.map((pair) => pair[1]).join(''), value };
  }
}
