// Sample-major packed files (`prepare --individuals`): the SNP-major packed file that `prepare` writes, transposed so
// that each vector is one sample's calls over the SNPs (SPEC §1 layout: 4 fields per byte from the low bits, pad bits
// zero), for relatedness between individuals (KING). The engine then reads blocks of samples by offset as it reads
// blocks of SNPs.
//
// Memory is bounded by one chunk of SNPs whatever the size: a chunk of SNP rows (a multiple of 4 SNPs, about
// CHUNK_BYTES) is read, transposed in memory into each sample's bytes for those SNPs, and written with one positioned
// write per sample at its place in the sample's row. 20,000 samples × 50,000 SNPs (250 MB either way) takes 8 chunks
// of 32 MiB in and out; transposing in the engine instead would make every rank read the whole SNP-major file with
// strided reads for its samples, on every field slab.
import { closeSync, openSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { UserError } from '../core/errors.js';
import { canonicalChromosome } from './chromosomeCodes.js';
import type { GenotypeRow, GenotypeSource } from './genotypeSource.js';
import { packedBytesPerVector, readExactly } from './packedVectorFile.js';
import { openForReading } from './openForReading.js';
import { systemErrorText } from './systemErrorText.js';

/** About how many bytes of SNP rows a chunk holds (and as many of sample rows). */
export const CHUNK_BYTES = 32 << 20;

/** Sizes of a transposition: the SNP-major file holds `numSnp` rows of `numSample` fields. */
export interface TransposeSizes {
  readonly numSnp: number;
  readonly numSample: number;
  /** SNPs per chunk (a multiple of 4); absent: as many as fit in CHUNK_BYTES. */
  readonly snpsPerChunk?: number;
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
export function transposeToSampleMajor(snpMajorPath: string, sampleMajorPath: string, finalPath: string, sizes: TransposeSizes): string {
  const { numSnp, numSample } = sizes;
  const bytesPerSnp = packedBytesPerVector(numSample);
  const bytesPerSample = packedBytesPerVector(numSnp);
  const snpsPerChunk = Math.min(sizes.snpsPerChunk ?? snpsPerChunkOf(numSample), 4 * bytesPerSample);
  if (snpsPerChunk % 4 !== 0) throw new Error(`snpsPerChunk ${snpsPerChunk} is not a multiple of 4`);
  const snpRows = new Uint8Array(snpsPerChunk * bytesPerSnp);
  const sampleRows = new Uint8Array(numSample * (snpsPerChunk / 4));
  const input = openForReading(snpMajorPath);
  let output: number;
  try {
    output = openSync(sampleMajorPath, 'wx');
  } catch (error) {
    closeSync(input);
    throw new UserError(`cannot create ${finalPath}: ${systemErrorText(error)}`);
  }
  try {
    for (let snpFirst = 0; snpFirst < numSnp; snpFirst += snpsPerChunk) {
      const numChunkSnp = Math.min(snpsPerChunk, numSnp - snpFirst);
      // SNPs past the end read as zero rows, so the pad fields of the last byte stay zero.
      snpRows.fill(0, numChunkSnp * bytesPerSnp);
      readExactly(input, snpMajorPath, snpRows, numChunkSnp * bytesPerSnp, snpFirst * bytesPerSnp);
      const bytesPerSampleChunk = Math.ceil(numChunkSnp / 4);
      transposeChunk(snpRows, { bytesPerSnp, numSample, bytesPerSampleChunk }, sampleRows);
      for (let sample = 0; sample < numSample; sample++) {
        const from = sample * bytesPerSampleChunk;
        writeAll(output, sampleRows.subarray(from, from + bytesPerSampleChunk), sample * bytesPerSample + snpFirst / 4, finalPath);
      }
    }
  } finally {
    closeSync(input);
    closeSync(output);
  }
  return sha256OfRows(sampleMajorPath, numSample * bytesPerSample);
}

/** The layout of one chunk's transposition. */
interface ChunkLayout {
  readonly bytesPerSnp: number;
  readonly numSample: number;
  /** Bytes of each sample's row the chunk fills (its SNPs / 4, rounded up). */
  readonly bytesPerSampleChunk: number;
}

/**
 * sampleRows[s · bytesPerSampleChunk + q] holds the codes of SNPs 4q … 4q + 3 of sample s: a 4 × 4 transpose of 2-bit
 * codes per group of 4 SNPs and 4 samples (one byte of each of the 4 SNP rows gives one byte of each of 4 samples).
 */
function transposeChunk(snpRows: Uint8Array, layout: ChunkLayout, sampleRows: Uint8Array): void {
  const { bytesPerSnp, numSample, bytesPerSampleChunk } = layout;
  for (let q = 0; q < bytesPerSampleChunk; q++) {
    const row0 = 4 * q * bytesPerSnp;
    for (let b = 0; b < bytesPerSnp; b++) {
      const x0 = snpRows[row0 + b];
      const x1 = snpRows[row0 + bytesPerSnp + b];
      const x2 = snpRows[row0 + 2 * bytesPerSnp + b];
      const x3 = snpRows[row0 + 3 * bytesPerSnp + b];
      const sampleFirst = 4 * b;
      const numHere = Math.min(4, numSample - sampleFirst);
      for (let k = 0; k < numHere; k++) {
        const shift = 2 * k;
        sampleRows[(sampleFirst + k) * bytesPerSampleChunk + q] =
          ((x0 >> shift) & 3) | (((x1 >> shift) & 3) << 2) | (((x2 >> shift) & 3) << 4) | (((x3 >> shift) & 3) << 6);
      }
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number, finalPath: string): void {
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
  } catch (error) {
    throw new UserError(`cannot write ${finalPath}: ${systemErrorText(error)}`);
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
  return { kind: source.kind, path: source.path, sampleIds: source.sampleIds, samples: source.samples, numSnpKnown: null, rows };
}
