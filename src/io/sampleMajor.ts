// Sample-major packed files (`prepare --individuals`): SNP rows transposed so that each vector is one sample's calls
// over the SNPs (SPEC §1 layout: 4 fields per byte from the low bits, pad bits zero), for relatedness between
// individuals (KING). The engine then reads blocks of samples by offset as it reads blocks of SNPs.
//
// Memory is bounded by two chunks of SNPs whatever the size: rows gather in a chunk (a multiple of 4 SNPs, about
// CHUNK_BYTES), which is transposed into each sample's bytes for those SNPs and written with one positioned write per
// sample at its place in the sample's row (sampleMajorChunks.ts) while the next chunk gathers. 20,000 samples × 50,000
// SNPs (250 MB either way) takes 8 chunks of 32 MiB; transposing in the engine instead would make every rank read the
// whole SNP-major file with strided reads for its samples, on every field slab. The rows come from a SNP-major file, or
// straight from the genotype source when it knows its number of rows beforehand (prepareGenotypes.ts).
import { closeSync, openSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { UserError } from '../core/errors.js';
import { canonicalChromosome } from './chromosomeCodes.js';
import { bedRecordsOf, describeBedRecords, type GenotypeRow, type GenotypeSource } from './genotypeSource.js';
import { packedBytesPerVector, readExactly } from './packedVectorFile.js';
import { openForReading } from './openForReading.js';
import { systemErrorText } from './systemErrorText.js';
import {
  BLOCK_BYTES, ChunkWriter, ChunkWriterPool, type MissingCallLists, type SampleMajorRows, type SampleRowsTarget,
} from './sampleMajorChunks.js';

/** About how many bytes of SNP rows a chunk holds (and as many of sample rows). */
export const CHUNK_BYTES = 32 << 20;

/** Sizes of a transposition: the SNP-major file holds `numSnp` rows of `numSample` fields. */
export interface TransposeSizes {
  readonly numSnp: number;
  readonly numSample: number;
  /** SNPs per chunk (a multiple of 4); absent: as many as fit in CHUNK_BYTES. */
  readonly snpsPerChunk?: number;
  /** Worker threads that transpose and write each chunk's samples; absent or 1: this thread alone. */
  readonly threads?: number;
}

/** SNPs per chunk: a multiple of 4 (so a chunk fills whole bytes of each sample's row), at least 4. */
export function snpsPerChunkOf(numSample: number, chunkBytes: number = CHUNK_BYTES): number {
  return Math.max(4, 4 * Math.floor(chunkBytes / packedBytesPerVector(numSample) / 4));
}

/**
 * Transposes `snpMajorPath` (numSnp SNP rows) into the new file `sampleMajorPath` (numSample sample rows of numSnp
 * fields); `finalPath` names the output in errors. Returns the SHA-256 of the bytes written.
 * @throws UserError when either file cannot be read or written.
 */
export async function transposeToSampleMajor(
  snpMajorPath: string, sampleMajorPath: string, finalPath: string, sizes: TransposeSizes,
): Promise<string> {
  const { numSnp, numSample } = sizes;
  const bytesPerSnp = packedBytesPerVector(numSample);
  const input = openForReading(snpMajorPath);
  try {
    const writer = await SampleMajorWriter.create({ kind: 'file', sampleMajorPath, finalPath }, sizes);
    try {
      const rows = new Uint8Array(writer.snpsPerChunk * bytesPerSnp);
      for (let snpFirst = 0; snpFirst < numSnp; snpFirst += writer.snpsPerChunk) {
        const length = Math.min(writer.snpsPerChunk, numSnp - snpFirst) * bytesPerSnp;
        readExactly(input, snpMajorPath, rows, length, snpFirst * bytesPerSnp);
        await writer.addRows(rows.subarray(0, length));
      }
      return await writer.finish();
    } finally {
      await writer.close();
    }
  } finally {
    closeSync(input);
  }
}

/**
 * Writes sample-major rows — a new file, or rows in memory — from their SNP rows, given in order (numSnp of them, known
 * beforehand): rows gather in a chunk buffer, and each full chunk is transposed and written (by worker threads with
 * `threads` > 1) while the next one gathers in a second buffer. `finish` (a file) returns its SHA-256, `finishRows`
 * (rows in memory) returns once they are all written; `close` always (it ends the workers).
 */
export class SampleMajorWriter {
  /** Two chunk buffers, shared with the workers. */
  private readonly buffers: Uint8Array[];
  private current = 0;
  private rowsInChunk = 0;
  /** First SNP of the chunk gathering. */
  private snpFirst = 0;
  /** The write of the other buffer. */
  private pending: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly rows: SampleMajorRows, private readonly output: number | null, private readonly chunks: ChunkWriter | ChunkWriterPool,
    private readonly numSnp: number, readonly snpsPerChunk: number,
  ) {
    this.buffers = [0, 1].map(() => new Uint8Array(new SharedArrayBuffer(snpsPerChunk * rows.bytesPerSnp)));
  }

  /**
   * Creates the file of a file target (`finalPath` in errors); rows in memory must hold numSample × ceil(numSnp / 4)
   * bytes, zero (pad fields are left as they are). @throws UserError when the file cannot be created.
   */
  static async create(target: SampleRowsTarget, sizes: TransposeSizes): Promise<SampleMajorWriter> {
    const { numSnp, numSample } = sizes;
    const bytesPerSnp = packedBytesPerVector(numSample);
    const bytesPerSample = packedBytesPerVector(numSnp);
    const snpsPerChunk = Math.min(sizes.snpsPerChunk ?? snpsPerChunkOf(numSample), 4 * bytesPerSample);
    if (snpsPerChunk % 4 !== 0 || snpsPerChunk <= 0) throw new Error(`snpsPerChunk ${snpsPerChunk} is not a positive multiple of 4`);
    const threads = Math.min(sizes.threads ?? 1, Math.ceil(bytesPerSnp / BLOCK_BYTES));
    if (target.kind === 'memory' && target.rows.length !== numSample * bytesPerSample) {
      throw new Error(`rows of ${target.rows.length} bytes for ${numSample} samples of ${bytesPerSample} bytes`);
    }
    let output: number | null = null;
    if (target.kind === 'file') {
      try {
        output = openSync(target.sampleMajorPath, 'wx');
      } catch (error) {
        throw new UserError(`cannot create ${target.finalPath}: ${systemErrorText(error)}`);
      }
    }
    const rows = { target, bytesPerSample, numSample, bytesPerSnp };
    try {
      const chunks = threads > 1 ? await ChunkWriterPool.create(rows, threads) : new ChunkWriter(rows, output);
      return new SampleMajorWriter(rows, output, chunks, numSnp, snpsPerChunk);
    } catch (error) {
      if (output !== null) closeSync(output);
      throw error;
    }
  }

  /** Appends whole SNP rows (bytesPerSnp each, packed SPEC codes, pad fields zero). */
  async addRows(rows: Uint8Array): Promise<void> {
    const { bytesPerSnp } = this.rows;
    for (let at = 0; at < rows.length;) {
      const take = Math.min((this.snpsPerChunk - this.rowsInChunk) * bytesPerSnp, rows.length - at);
      this.buffers[this.current].set(rows.subarray(at, at + take), this.rowsInChunk * bytesPerSnp);
      this.rowsInChunk += take / bytesPerSnp;
      at += take;
      if (this.rowsInChunk === this.snpsPerChunk) await this.writeChunk();
    }
  }

  /** Writes the last chunk and waits for every write. @throws Error when fewer or more rows came than numSnp. */
  async finishRows(): Promise<void> {
    if (this.rowsInChunk > 0) await this.writeChunk();
    await this.pending;
    if (this.snpFirst !== this.numSnp) throw new Error(`a sample-major layout of ${this.numSnp} SNPs was given ${this.snpFirst}`);
  }

  /** A file target: writes the last chunk and closes; returns the file's SHA-256. */
  async finish(): Promise<string> {
    const { target } = this.rows;
    if (target.kind !== 'file') throw new Error('finish is for a file target (rows in memory: finishRows)');
    await this.finishRows();
    await this.close();
    return sha256OfRows(target.sampleMajorPath, this.rows.numSample * this.rows.bytesPerSample);
  }

  /** Rows in memory, after finishRows: each sample's missing calls (listed by the workers, in their sample ranges). */
  missingCalls(): Promise<MissingCallLists> {
    return this.chunks.missingCalls();
  }

  /** Ends the workers and closes the file (once; after finish too). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.chunks.close();
    } finally {
      if (this.output !== null) closeSync(this.output);
    }
  }

  /** Starts the gathered chunk's write, then waits for the other buffer's so that it can gather next. */
  private async writeChunk(): Promise<void> {
    const snpRows = this.buffers[this.current];
    // Rows past the chunk's last read as zero, so the pad fields of a sample's last byte stay zero.
    snpRows.fill(0, this.rowsInChunk * this.rows.bytesPerSnp);
    const started = this.chunks.write({ snpRows, snpFirst: this.snpFirst, numChunkSnp: this.rowsInChunk });
    // Observed now: it may fail while the other write is awaited (it is awaited in turn below or in finish).
    started.catch(() => undefined);
    await this.pending;
    this.pending = started;
    this.snpFirst += this.rowsInChunk;
    this.rowsInChunk = 0;
    this.current = 1 - this.current;
  }
}

function sha256OfRows(path: string, numBytes: number): string {
  const hash = createHash('sha256');
  const chunk = new Uint8Array(4 << 20);
  const fd = openForReading(path);
  try {
    for (let position = 0; position < numBytes; position += chunk.length) {
      const length = Math.min(chunk.length, numBytes - position);
      readExactly(fd, path, chunk, length, position);
      hash.update(chunk.subarray(0, length));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** PLINK's human autosomes, 1–22 (plink2 computes KING-robust over them alone). */
function isAutosome(chrom: string): boolean {
  const code = Number(canonicalChromosome(chrom));
  return Number.isInteger(code) && code >= 1 && code <= 22;
}

/** `source` without its variants off the autosomes (PLINK's --autosome); refuses a source left with none. */
export function autosomesOf(source: GenotypeSource): GenotypeSource {
  async function* rows(): AsyncGenerator<GenotypeRow> {
    let numKept = 0;
    for await (const row of source.rows()) {
      if (!isAutosome(row.snp.chrom)) continue;
      numKept++;
      yield row;
    }
    if (numKept === 0) throw new UserError(`${source.path}: no variants on the autosomes (1–22) remain (--autosome)`);
  }
  const kept = source.snps?.map((snp) => isAutosome(snp.chrom)) ?? null;
  const snps = source.snps?.filter((_, s) => kept?.[s] === true) ?? null;
  const bedRecords = bedRecordsOf(source);
  if (bedRecords !== null && kept !== null) describeBedRecords(rows, { ...bedRecords, snpIndices: bedRecords.snpIndices.filter((_, s) => kept[s]) });
  return {
    kind: source.kind, path: source.path, sampleIds: source.sampleIds, samples: source.samples,
    numSnpKnown: snps?.length ?? null, snps, rows,
  };
}
