// `prepare`: streams a genotype source into a packed vector file (SPEC §1) and its JSON sidecar.
//
// Memory stays bounded by one write buffer and the per-SNP names, whatever the number of samples × SNPs:
// rows are appended as they are read; a permuted file is then copied vector by vector in the new order
// with positioned reads (the source order is only known, for a VCF, once the file has been read). A sample-major file is
// transposed from the SNP-major one in chunks, or from the rows as they come when the source counts them beforehand.
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createHash, type Hash } from 'node:crypto';
import { UserError } from '../core/errors.js';
import { wholeBedRecordsOf, type BadSite, type GenotypeRow, type GenotypeSource, type SnpInfo } from './genotypeSource.js';
import { readBedRecordsAsPacked } from './bedRecordReads.js';
import type { SelectionRecord } from './genotypeSelection.js';
import type { CaseControlRecord } from './phenotypes.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import {
  FIELD_CODING, SIDECAR_FORMAT, SIDECAR_VERSION, sidecarPathOf, stageSidecarFile, type PreparedSidecar, type SidecarSnps,
} from './preparedSidecar.js';
import { commitStagedFiles, discardStagedFiles, type StagedFile } from './stagedFiles.js';
import { systemErrorText } from './systemErrorText.js';
import { temporaryPathFor } from './temporaryFiles.js';
import { seededVectorOrder } from './vectorPermutation.js';
import { SampleMajorWriter, transposeToSampleMajor } from './sampleMajor.js';

/** Options of {@link prepareGenotypes}. */
export interface PrepareOptions {
  /** Shuffle vector order with this seed (see vectorPermutation.ts); null keeps source order. */
  readonly permuteSeed: number | null;
  /** Sites skipped by the reader so far are recorded in the sidecar; the caller collects them. */
  readonly skippedSites?: () => { count: number; first: readonly BadSite[] };
  /** What a selection kept (genotypeSelection.ts), asked once the rows have been read; absent for no selection. */
  readonly selection?: () => SelectionRecord;
  /** What the file's vectors are: SNPs (absent: the usual layout) or samples (transposed, sampleMajor.ts; no permutation). */
  readonly vectors?: 'snps' | 'samples';
  /** The samples' case-control order (phenotypes.ts orderByClass); absent for source order. */
  readonly caseControl?: CaseControlRecord;
}

const WRITE_BUFFER_BYTES = 4 << 20;
const EMPTY_ROW = new Uint8Array(0);

/**
 * Writes `packedPath` and `<packedPath>.json` from `source`; both appear only when both are complete (temporary
 * names, then renames, the sidecar last: a packed file without its sidecar would pass for a raw one). Returns the
 * sidecar.
 * @throws UserError for read errors of the source, an empty source, or files that cannot be written.
 */
export async function prepareGenotypes(
  source: GenotypeSource, packedPath: string, options: PrepareOptions,
): Promise<PreparedSidecar> {
  const numField = source.sampleIds.length;
  const bytesPerVector = packedBytesPerVector(numField);
  const temporary = temporaryPathFor(packedPath);
  let columns = new SnpColumns();
  const bySample = options.vectors === 'samples';
  if (bySample && options.permuteSeed !== null) throw new Error('a sample-major file is not permuted (the CLI refuses --permute with --individuals)');
  // A sample-major file whose rows the source counts beforehand (a .bed, selected by descriptions) is transposed as
  // the rows come: no SNP-major file written, read back and removed (250 MB each way at 20,000 × 50,000).
  const knownRows = bySample && source.numSnpKnown !== null && source.numSnpKnown > 0 ? source.numSnpKnown : null;
  // The file's hash is the packed file's only when it is written as it is (not transposed or permuted afterwards).
  const writer = knownRows === null ? new BufferedFileWriter(temporary, packedPath, { hashes: !bySample && options.permuteSeed === null }) : null;
  let sampleWriter: SampleMajorWriter | null = null;
  const staged: StagedFile[] = [];
  try {
    if (knownRows !== null) {
      const transposed = temporaryPathFor(packedPath);
      sampleWriter = await SampleMajorWriter.create({ kind: 'file', sampleMajorPath: transposed, finalPath: packedPath }, {
        numSnp: knownRows, numSample: numField, threads: transposeThreads(knownRows * bytesPerVector),
      });
      staged.push({ finalPath: packedPath, temporaryPath: transposed });
    }
    // Whole .bed records are SNP vectors but for their codes: read and converted in bulk, not a row at a time.
    const bed = bySample ? null : wholeBedRecordsOf(source);
    if (bed !== null && writer !== null) {
      columns = writeBedRecords(bed, writer, bytesPerVector);
    } else {
      for await (const row of source.rows()) {
        if (sampleWriter !== null) await sampleWriter.addRows(row.packed.subarray(0, bytesPerVector));
        else writer?.write(row.packed.subarray(0, bytesPerVector));
        columns.add(row);
      }
    }
    writer?.close();
    const numVector = columns.numSnp;
    if (numVector === 0) throw new UserError(`${source.path}: no SNPs to prepare`);

    let vectorOrder: PreparedSidecar['vectorOrder'] = null;
    let packedSha256: string;
    if (sampleWriter !== null) {
      packedSha256 = await sampleWriter.finish();
    } else if (bySample) {
      const transposed = temporaryPathFor(packedPath);
      staged.push({ finalPath: packedPath, temporaryPath: transposed });
      packedSha256 = await transposeToSampleMajor(temporary, transposed, packedPath, {
        numSnp: numVector, numSample: numField, threads: transposeThreads(numVector * bytesPerVector),
      });
    } else if (options.permuteSeed !== null) {
      const order = seededVectorOrder(numVector, options.permuteSeed);
      const permuted = temporaryPathFor(packedPath);
      staged.push({ finalPath: packedPath, temporaryPath: permuted });
      packedSha256 = copyInOrder(temporary, permuted, packedPath, { order, bytesPerVector });
      vectorOrder = { seed: options.permuteSeed, snpOfVector: Array.from(order) };
    } else if (writer !== null) {
      packedSha256 = writer.sha256();
      staged.push({ finalPath: packedPath, temporaryPath: temporary });
    } else {
      throw new Error('prepare: a SNP-major file without its writer');
    }
    const sidecar = sidecarOf(source, columns, {
      vectors: bySample ? 'samples' : 'snps', packedSha256, vectorOrder, skippedSites: options.skippedSites, selection: options.selection,
      caseControl: options.caseControl,
    });
    staged.push(stageSidecarFile(sidecarPathOf(packedPath), sidecar));
    commitStagedFiles(staged);
    staged.length = 0;
    return sidecar;
  } finally {
    writer?.closeQuietly();
    await sampleWriter?.close();
    discardStagedFiles(staged);
    rmSync(temporary, { force: true });
  }
}

/** The SNP columns of a sidecar and the missing calls, gathered as a source's rows are read. */
export class SnpColumns {
  private readonly id: string[] = [];
  private readonly chrom: string[] = [];
  private readonly pos: number[] = [];
  private readonly allele1: string[] = [];
  private readonly allele2: string[] = [];
  numMissingCalls = 0;

  add(row: GenotypeRow): void {
    this.id.push(row.snp.id);
    this.chrom.push(row.snp.chrom);
    this.pos.push(row.snp.pos);
    this.allele1.push(row.snp.allele1);
    this.allele2.push(row.snp.allele2);
    this.numMissingCalls += row.numMissing;
  }

  /** The columns of SNPs whose rows are not read one by one (bedSampleRows.ts), with their missing calls' total. */
  static of(snps: readonly SnpInfo[], numMissingCalls: number): SnpColumns {
    const columns = new SnpColumns();
    for (const snp of snps) columns.add({ snp, packed: EMPTY_ROW, numMissing: 0 });
    columns.numMissingCalls = numMissingCalls;
    return columns;
  }

  get numSnp(): number {
    return this.id.length;
  }

  snps(): SidecarSnps {
    return { id: this.id, chrom: this.chrom, pos: this.pos, allele1: this.allele1, allele2: this.allele2 };
  }
}

/** What a sidecar records besides the source and its SNP columns. */
export interface SidecarFacts extends Pick<PrepareOptions, 'skippedSites' | 'selection' | 'caseControl'> {
  readonly vectors: 'snps' | 'samples';
  readonly packedSha256: string;
  readonly vectorOrder: PreparedSidecar['vectorOrder'];
}

/** The sidecar of `source`'s rows (`columns`, all read) laid out as `facts.vectors` says. */
export function sidecarOf(source: GenotypeSource, columns: SnpColumns, facts: SidecarFacts): PreparedSidecar {
  const numSample = source.sampleIds.length;
  const numSnp = columns.numSnp;
  const bySample = facts.vectors === 'samples';
  return {
    format: SIDECAR_FORMAT,
    version: SIDECAR_VERSION,
    source: { kind: source.kind, path: source.path },
    numVector: bySample ? numSample : numSnp,
    numField: bySample ? numSnp : numSample,
    packedBytes: bySample ? numSample * packedBytesPerVector(numSnp) : numSnp * packedBytesPerVector(numSample),
    packedSha256: facts.packedSha256,
    numMissingCalls: columns.numMissingCalls,
    coding: FIELD_CODING,
    sampleIds: source.sampleIds,
    snps: columns.snps(),
    vectorOrder: facts.vectorOrder,
    skippedSites: facts.skippedSites?.() ?? { count: 0, first: [] },
    selection: facts.selection?.() ?? null,
    ...(bySample ? { vectors: 'samples' as const, sampleNames: source.samples.map(({ fid, iid }) => ({ fid, iid })) } : {}),
    ...(facts.caseControl === undefined ? {} : { caseControl: facts.caseControl }),
  };
}

/**
 * Worker threads of a transposition of `numBytes`: one per core (at most 16) from 64 MiB on; below it one thread, as
 * starting workers (~50 ms) would cost more than they save.
 */
export function transposeThreads(numBytes: number): number {
  return numBytes < 64 << 20 ? 1 : Math.min(16, availableParallelism());
}

/** Writes the SNP vectors of .bed records `bed` with `writer`, a few MB of records at a time; returns their columns. */
function writeBedRecords(bed: NonNullable<ReturnType<typeof wholeBedRecordsOf>>, writer: BufferedFileWriter, bytesPerVector: number): SnpColumns {
  const numSnp = bed.snps.length;
  const recordsPerRead = Math.max(1, Math.min(numSnp, Math.floor(WRITE_BUFFER_BYTES / bytesPerVector)));
  const chunk = new Uint8Array(recordsPerRead * bytesPerVector);
  let numMissingCalls = 0;
  for (let first = 0; first < numSnp; first += recordsPerRead) {
    const count = Math.min(recordsPerRead, numSnp - first);
    numMissingCalls += readBedRecordsAsPacked(bed.records, chunk, { first, count });
    writer.write(chunk.subarray(0, count * bytesPerVector));
  }
  return SnpColumns.of(bed.snps, numMissingCalls);
}

/** Copies the vectors of `fromPath` into the new file `toPath` (for `finalPath`) in `order`; returns the SHA-256. */
function copyInOrder(
  fromPath: string, toPath: string, finalPath: string, layout: { readonly order: Uint32Array; readonly bytesPerVector: number },
): string {
  const { order, bytesPerVector } = layout;
  const writer = new BufferedFileWriter(toPath, finalPath);
  const fd = openSync(fromPath, 'r');
  const vector = new Uint8Array(bytesPerVector);
  try {
    for (const snpIdx of order) {
      let done = 0;
      while (done < bytesPerVector) {
        const got = readSync(fd, vector, done, bytesPerVector - done, snpIdx * bytesPerVector + done);
        if (got === 0) throw new UserError(`${fromPath} shrank while it was being permuted`);
        done += got;
      }
      writer.write(vector);
    }
    writer.close();
    return writer.sha256();
  } finally {
    closeSync(fd);
    writer.closeQuietly();
  }
}

/** Sequential buffered writes that also hash what they write (when asked: 0.2 s per 250 MB). */
class BufferedFileWriter {
  private fd: number | null;
  private readonly buffer = new Uint8Array(WRITE_BUFFER_BYTES);
  private used = 0;
  private readonly hash: Hash | null;

  constructor(path: string, private readonly finalPath: string, options: { readonly hashes: boolean } = { hashes: true }) {
    this.hash = options.hashes ? createHash('sha256') : null;
    try {
      this.fd = openSync(path, 'wx');
    } catch (error) {
      throw new UserError(`cannot create ${finalPath}: ${systemErrorText(error)}`);
    }
  }

  write(bytes: Uint8Array): void {
    this.hash?.update(bytes);
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) {
      this.writeAll(bytes);
      return;
    }
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  close(): void {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  closeQuietly(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  sha256(): string {
    if (this.hash === null) throw new Error('sha256 of a writer that does not hash');
    return this.hash.digest('hex');
  }

  private flush(): void {
    this.writeAll(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(bytes: Uint8Array): void {
    if (this.fd === null) throw new Error('write after close');
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
    } catch (error) {
      throw new UserError(`cannot write ${this.finalPath}: ${systemErrorText(error)}`);
    }
  }
}
