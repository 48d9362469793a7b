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

/**
 * The blocks of a chunk's transposition: BLOCK_BYTES bytes of BLOCK_BYTES groups of 4 SNP rows (4·64 SNPs × 256 samples)
 * in, one cache line of each of the 256 sample rows out, both 16 KiB: every line is fetched once and filled whole while
 * it is in L1. (Tiles of 16 bytes over the whole chunk's SNPs fetched each input line four times from memory.)
 */
const BLOCK_BYTES = 64;

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
 * The four bytes become one uint32 (code of SNP r, sample c at bit 8r + 2c), transposed in place by two delta swaps
 * (2 × 2 codes, then 2 × 2 blocks): bit 8c + 2r, so byte c is sample c's byte. Why: ~12 operations per 4 samples
 * where extracting each code took ~48; and in blocks (BLOCK_BYTES) so that both sides stay in cache.
 */
function transposeChunk(snpRows: Uint8Array, layout: ChunkLayout, sampleRows: Uint8Array): void {
  const { bytesPerSnp, numSample, bytesPerSampleChunk } = layout;
  const fullBytes = numSample >> 2;
  for (let qFirst = 0; qFirst < bytesPerSampleChunk; qFirst += BLOCK_BYTES) {
    const qEnd = Math.min(bytesPerSampleChunk, qFirst + BLOCK_BYTES);
    for (let tileFirst = 0; tileFirst < bytesPerSnp; tileFirst += BLOCK_BYTES) {
      const tileEnd = Math.min(bytesPerSnp, tileFirst + BLOCK_BYTES);
      const fullEnd = Math.min(tileEnd, fullBytes);
      for (let q = qFirst; q < qEnd; q++) {
        const row0 = 4 * q * bytesPerSnp;
        const row1 = row0 + bytesPerSnp, row2 = row1 + bytesPerSnp, row3 = row2 + bytesPerSnp;
        let b = tileFirst;
        for (; b < fullEnd; b++) {
          let w = snpRows[row0 + b] | (snpRows[row1 + b] << 8) | (snpRows[row2 + b] << 16) | (snpRows[row3 + b] << 24);
          let t = ((w >>> 6) ^ w) & 0x00cc00cc;
          w ^= t ^ (t << 6);
          t = ((w >>> 12) ^ w) & 0x0000f0f0;
          w ^= t ^ (t << 12);
          let at = 4 * b * bytesPerSampleChunk + q;
          sampleRows[at] = w;
          sampleRows[(at += bytesPerSampleChunk)] = w >>> 8;
          sampleRows[(at += bytesPerSampleChunk)] = w >>> 16;
          sampleRows[at + bytesPerSampleChunk] = w >>> 24;
        }
        // The last byte of a SNP row holds fewer than 4 samples.
        for (; b < tileEnd; b++) {
          let w = snpRows[row0 + b] | (snpRows[row1 + b] << 8) | (snpRows[row2 + b] << 16) | (snpRows[row3 + b] << 24);
          let t = ((w >>> 6) ^ w) & 0x00cc00cc;
          w ^= t ^ (t << 6);
          t = ((w >>> 12) ^ w) & 0x0000f0f0;
          w ^= t ^ (t << 12);
          let at = 4 * b * bytesPerSampleChunk + q;
          for (let k = 0; k < numSample - 4 * b; k++, at += bytesPerSampleChunk) sampleRows[at] = w >>> (8 * k);
        }
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
