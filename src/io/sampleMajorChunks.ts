// The chunk step of the sample-major transposition (sampleMajor.ts): a chunk of SNP rows (a multiple of 4 SNPs) turned
// into each sample's bytes for those SNPs, written with one positioned write per sample at its place in the sample's
// row — on this thread (ChunkWriter) or cut into sample ranges on worker threads (ChunkWriterPool, sampleMajorWorker.ts).
import { writeSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { TaskWorkerPool } from '../core/taskWorkerPool.js';
import { systemErrorText } from './systemErrorText.js';

/** The sample-major file a chunk's samples are written into. */
export interface SampleMajorFile {
  readonly sampleMajorPath: string;
  readonly finalPath: string;
  readonly bytesPerSample: number;
  readonly numSample: number;
  readonly bytesPerSnp: number;
}

/** One chunk of SNP rows, and the bytes of its rows (4 samples each) to transpose: [byteFirst, byteEnd). */
export interface ChunkPart {
  readonly snpRows: Uint8Array;
  readonly snpFirst: number;
  readonly numChunkSnp: number;
  readonly byteFirst?: number;
  readonly byteEnd?: number;
}

/** Transposes chunks (or the samples of `byteFirst … byteEnd` of them) and writes each sample's piece in place. */
export class ChunkWriter {
  private sampleRows = new Uint8Array(0);

  constructor(private readonly file: SampleMajorFile, private readonly output: number) {}

  /** Transposes and writes one part (synchronously; the promise keeps ChunkWriterPool's shape). */
  write(part: ChunkPart): Promise<void> {
    this.writePart(part);
    return Promise.resolve();
  }

  writePart(part: ChunkPart): void {
    const { bytesPerSample, numSample, bytesPerSnp, finalPath } = this.file;
    const byteFirst = part.byteFirst ?? 0;
    const byteEnd = part.byteEnd ?? bytesPerSnp;
    const bytesPerSampleChunk = Math.ceil(part.numChunkSnp / 4);
    const sampleFirst = 4 * byteFirst;
    const sampleEnd = Math.min(numSample, 4 * byteEnd);
    const size = (sampleEnd - sampleFirst) * bytesPerSampleChunk;
    if (this.sampleRows.length < size) this.sampleRows = new Uint8Array(size);
    transposeChunk(part.snpRows, { bytesPerSnp, numSample, bytesPerSampleChunk, byteFirst, byteEnd }, this.sampleRows);
    for (let sample = sampleFirst; sample < sampleEnd; sample++) {
      const from = (sample - sampleFirst) * bytesPerSampleChunk;
      writeAll(this.output, this.sampleRows.subarray(from, from + bytesPerSampleChunk), sample * bytesPerSample + part.snpFirst / 4, finalPath);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The task of a transposition worker (sampleMajorWorker.ts). */
export type ChunkTask = ChunkPart;

/** Worker threads that each transpose and write a range of every chunk's samples. */
export class ChunkWriterPool {
  private constructor(private readonly pool: TaskWorkerPool<ChunkTask, null>, private readonly bytesPerSnp: number) {}

  static async create(file: SampleMajorFile, threads: number): Promise<ChunkWriterPool> {
    const pool = await TaskWorkerPool.create<ChunkTask, null>({ workerUrl: WORKER_URL, numThreads: threads, workerData: file, name: 'transpose worker' });
    return new ChunkWriterPool(pool, file.bytesPerSnp);
  }

  /** Resolves once every range of the chunk is written. */
  async write(part: ChunkPart): Promise<void> {
    const numThreads = this.pool.numThreads;
    // Ranges of whole blocks, so that no two workers share a block's cache lines.
    const tiles = Math.ceil(this.bytesPerSnp / BLOCK_BYTES);
    const parts = Array.from({ length: numThreads }, (_, t) => ({
      ...part, byteFirst: Math.min(this.bytesPerSnp, BLOCK_BYTES * Math.floor((t * tiles) / numThreads)),
      byteEnd: Math.min(this.bytesPerSnp, BLOCK_BYTES * Math.floor(((t + 1) * tiles) / numThreads)),
    })).filter((range) => range.byteEnd > range.byteFirst);
    await Promise.all(parts.map((range) => this.pool.run(range)));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

const WORKER_URL = new URL('./sampleMajorWorker.js', import.meta.url);

/** The layout of one chunk's transposition. */
interface ChunkLayout {
  readonly bytesPerSnp: number;
  readonly numSample: number;
  /** Bytes of each sample's row the chunk fills (its SNPs / 4, rounded up). */
  readonly bytesPerSampleChunk: number;
  /** The bytes of the SNP rows transposed: samples 4·byteFirst … , whose rows start at sampleRows[0]. */
  readonly byteFirst: number;
  readonly byteEnd: number;
}

/**
 * The blocks of a chunk's transposition: BLOCK_BYTES bytes of BLOCK_BYTES groups of 4 SNP rows (4·64 SNPs × 256 samples)
 * in, one cache line of each of the 256 sample rows out, both 16 KiB: every line is fetched once and filled whole while
 * it is in L1. (Tiles of 16 bytes over the whole chunk's SNPs fetched each input line four times from memory.)
 */
export const BLOCK_BYTES = 64;

/**
 * sampleRows[s · bytesPerSampleChunk + q] holds the codes of SNPs 4q … 4q + 3 of sample s: a 4 × 4 transpose of 2-bit
 * codes per group of 4 SNPs and 4 samples (one byte of each of the 4 SNP rows gives one byte of each of 4 samples).
 * The four bytes become one uint32 (code of SNP r, sample c at bit 8r + 2c), transposed in place by two delta swaps
 * (2 × 2 codes, then 2 × 2 blocks): bit 8c + 2r, so byte c is sample c's byte. Why: ~12 operations per 4 samples
 * where extracting each code took ~48; and in blocks (BLOCK_BYTES) so that both sides stay in cache.
 */
function transposeChunk(snpRows: Uint8Array, layout: ChunkLayout, sampleRows: Uint8Array): void {
  const { bytesPerSnp, numSample, bytesPerSampleChunk, byteFirst, byteEnd } = layout;
  const fullBytes = numSample >> 2;
  // Sample rows start at sample 4·byteFirst.
  const rowsFirst = 4 * byteFirst * bytesPerSampleChunk;
  for (let qFirst = 0; qFirst < bytesPerSampleChunk; qFirst += BLOCK_BYTES) {
    const qEnd = Math.min(bytesPerSampleChunk, qFirst + BLOCK_BYTES);
    for (let tileFirst = byteFirst; tileFirst < byteEnd; tileFirst += BLOCK_BYTES) {
      const tileEnd = Math.min(byteEnd, tileFirst + BLOCK_BYTES);
      const fullEnd = Math.min(tileEnd, fullBytes);
      for (let q = qFirst; q < qEnd; q++) {
        const row0 = 4 * q * bytesPerSnp;
        const row1 = row0 + bytesPerSnp, row2 = row1 + bytesPerSnp, row3 = row2 + bytesPerSnp;
        let b = tileFirst;
        for (; b < fullEnd; b++) {
          const w = transposedCodes(snpRows[row0 + b] | (snpRows[row1 + b] << 8) | (snpRows[row2 + b] << 16) | (snpRows[row3 + b] << 24));
          let at = 4 * b * bytesPerSampleChunk - rowsFirst + q;
          sampleRows[at] = w;
          sampleRows[(at += bytesPerSampleChunk)] = w >>> 8;
          sampleRows[(at += bytesPerSampleChunk)] = w >>> 16;
          sampleRows[at + bytesPerSampleChunk] = w >>> 24;
        }
        // The last byte of a SNP row holds fewer than 4 samples.
        for (; b < tileEnd; b++) {
          const w = transposedCodes(snpRows[row0 + b] | (snpRows[row1 + b] << 8) | (snpRows[row2 + b] << 16) | (snpRows[row3 + b] << 24));
          let at = 4 * b * bytesPerSampleChunk - rowsFirst + q;
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

/** A 4 × 4 block of 2-bit codes transposed (byte r, code c → byte c, code r): two delta swaps. */
function transposedCodes(block: number): number {
  let w = block;
  let t = ((w >>> 6) ^ w) & 0x00cc00cc;
  w ^= t ^ (t << 6);
  t = ((w >>> 12) ^ w) & 0x0000f0f0;
  w ^= t ^ (t << 12);
  return w;
}
