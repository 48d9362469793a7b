// The chunk step of the sample-major transposition (sampleMajor.ts): a chunk of SNP rows (a multiple of 4 SNPs) turned
// into each sample's bytes for those SNPs, put at their place in each sample's row — a positioned write per sample into
// a file, or straight into shared memory — on this thread (ChunkWriter) or cut into sample ranges on worker threads
// (ChunkWriterPool, sampleMajorWorker.ts). The same ranges then list each sample's missing calls (rows in memory).
import { writeSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { TaskWorkerPool } from '../core/taskWorkerPool.js';
import { systemErrorText } from './systemErrorText.js';
import { Uint32List } from '../core/uint32List.js';

/**
 * Where the sample rows go: a new file, each sample's piece written in place (`finalPath` names it in errors), or
 * `rows` in memory (numSample × bytesPerSample bytes, a SharedArrayBuffer's when workers fill it).
 */
export type SampleRowsTarget =
  | { readonly kind: 'file'; readonly sampleMajorPath: string; readonly finalPath: string }
  | { readonly kind: 'memory'; readonly rows: Uint8Array };

/** The sample-major rows a chunk's samples are written into, and the sizes of both layouts. */
export interface SampleMajorRows {
  readonly target: SampleRowsTarget;
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

/** Samples 4·byteFirst … of rows in memory whose missing calls to list (missingCallsOfRows). */
export interface MissingScanPart {
  readonly byteFirst: number;
  readonly byteEnd: number;
}

/** Transposes chunks (or the samples of `byteFirst … byteEnd` of them) and puts each sample's piece in place. */
export class ChunkWriter {
  private sampleRows = new Uint8Array(0);

  /** `output`: the open file of a file target; null for rows in memory. */
  constructor(private readonly rows: SampleMajorRows, private readonly output: number | null) {}

  /** Transposes and writes one part (synchronously; the promise keeps ChunkWriterPool's shape). */
  write(part: ChunkPart): Promise<void> {
    this.writePart(part);
    return Promise.resolve();
  }

  writePart(part: ChunkPart): void {
    const { bytesPerSample, numSample, bytesPerSnp, target } = this.rows;
    const byteFirst = part.byteFirst ?? 0;
    const byteEnd = part.byteEnd ?? bytesPerSnp;
    const bytesPerSampleChunk = Math.ceil(part.numChunkSnp / 4);
    const sampleFirst = 4 * byteFirst;
    const sampleEnd = Math.min(numSample, 4 * byteEnd);
    const layout = { bytesPerSnp, numSample, bytesPerSampleChunk, byteFirst, byteEnd };
    if (target.kind === 'memory') {
      // Straight into each sample's row: its bytes for these SNPs start at snpFirst / 4.
      transposeChunk(part.snpRows, layout, { bytes: target.rows, rowStride: bytesPerSample, firstRowAt: sampleFirst * bytesPerSample + part.snpFirst / 4 });
      return;
    }
    const size = (sampleEnd - sampleFirst) * bytesPerSampleChunk;
    if (this.sampleRows.length < size) this.sampleRows = new Uint8Array(size);
    transposeChunk(part.snpRows, layout, { bytes: this.sampleRows, rowStride: bytesPerSampleChunk, firstRowAt: 0 });
    if (this.output === null) throw new Error('a file target without its file');
    for (let sample = sampleFirst; sample < sampleEnd; sample++) {
      const from = (sample - sampleFirst) * bytesPerSampleChunk;
      writeAll(this.output, this.sampleRows.subarray(from, from + bytesPerSampleChunk), sample * bytesPerSample + part.snpFirst / 4, target.finalPath);
    }
  }

  /** The missing calls of every sample of rows in memory. */
  missingCalls(): Promise<MissingCallLists> {
    return Promise.resolve(missingCallsOfRange(this.rows, { byteFirst: 0, byteEnd: this.rows.bytesPerSnp }));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The task of a transposition worker (sampleMajorWorker.ts): a chunk's range of samples, their missing calls, ranges
 * of SNPs read from a .bed (bedSampleRows.ts), in order, until `stop[0]` is set, or the SHA-256 of the rows in memory.
 */
export type ChunkTask =
  | { readonly kind: 'chunk'; readonly part: ChunkPart }
  | { readonly kind: 'missing'; readonly part: MissingScanPart }
  | { readonly kind: 'bed'; readonly parts: readonly BedRangePart[]; readonly stop: Int32Array }
  | { readonly kind: 'hash' };

/** What a transposition task posts back: a range's missing calls, the rows' SHA-256 (hex), or nothing. */
export type ChunkTaskOutcome = MissingCallLists | string | null;

/** SNPs snpFirst … of the rows in memory, read from .bed records `snpIndices` (bedSampleRows.ts). */
export interface BedRangePart {
  readonly bedPath: string;
  readonly snpIndices: Uint32Array;
  /** The first SNP's index in the rows (a multiple of 4). */
  readonly snpFirst: number;
}

/** Transposition workers starting (ChunkWriterPool.start), waiting for the rows they write. */
export interface ChunkWriterPoolStart {
  readonly numThreads: number;
  /** Gives the workers their rows; resolves once every worker is ready. Once only. */
  complete(rows: SampleMajorRows): Promise<ChunkWriterPool>;
  /** Stops the workers of a start that will not be completed (nothing once completed). */
  cancel(): Promise<void>;
}

/** Worker threads that each transpose and write a range of every chunk's samples. */
export class ChunkWriterPool {
  private constructor(private readonly pool: TaskWorkerPool<ChunkTask, ChunkTaskOutcome>, private readonly bytesPerSnp: number) {}

  static create(rows: SampleMajorRows, threads: number): Promise<ChunkWriterPool> {
    return ChunkWriterPool.start(threads).complete(rows);
  }

  /**
   * Starts `threads` workers before their rows are known (their start, module loads and compiles overlap what the
   * caller does meanwhile, e.g. reading a fileset's .bim and .fam); `complete(rows)` gives them the rows.
   */
  static start(threads: number): ChunkWriterPoolStart {
    const starting = TaskWorkerPool.start<ChunkTask, ChunkTaskOutcome>({ workerUrl: WORKER_URL, numThreads: threads, workerData: null, name: 'transpose worker' });
    return {
      numThreads: threads,
      complete: async (rows) => new ChunkWriterPool(await starting.complete(rows), rows.bytesPerSnp),
      cancel: () => starting.cancel(),
    };
  }

  /** Runs one task on a worker (bedSampleRows.ts hands out ranges of SNPs). */
  run(task: ChunkTask): Promise<ChunkTaskOutcome> {
    return this.pool.run(task);
  }

  /**
   * The SHA-256 (hex) of the rows in memory, on a worker of the pool: queued before the missing-call scans, it runs
   * beside them instead of on a thread started for it alone (a thread's start costs about what 50 MB of SHA-256 do).
   */
  async rowsSha256(): Promise<string> {
    const digest = await this.pool.run({ kind: 'hash' });
    if (typeof digest !== 'string') throw new Error('a hash of the rows without its digest');
    return digest;
  }

  /** Resolves once every range of the chunk is written. */
  async write(part: ChunkPart): Promise<void> {
    await Promise.all(this.ranges().map((range) => this.pool.run({ kind: 'chunk', part: { ...part, ...range } })));
  }

  /** The missing calls of every sample of rows in memory, each range listed on a worker. */
  async missingCalls(): Promise<MissingCallLists> {
    const lists = await Promise.all(this.ranges().map((range) => this.pool.run({ kind: 'missing', part: range })));
    const parts = lists.map((list) => {
      if (list === null || typeof list === 'string') throw new Error('a missing-call scan without its lists');
      return list;
    });
    return { counts: concatWords(parts.map((part) => part.counts)), snps: concatWords(parts.map((part) => part.snps)) };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** One range of whole blocks per worker, so that no two workers share a block's cache lines. */
  private ranges(): MissingScanPart[] {
    const numThreads = this.pool.numThreads;
    const tiles = Math.ceil(this.bytesPerSnp / BLOCK_BYTES);
    return Array.from({ length: numThreads }, (_, t) => ({
      byteFirst: Math.min(this.bytesPerSnp, BLOCK_BYTES * Math.floor((t * tiles) / numThreads)),
      byteEnd: Math.min(this.bytesPerSnp, BLOCK_BYTES * Math.floor(((t + 1) * tiles) / numThreads)),
    })).filter((range) => range.byteEnd > range.byteFirst);
  }
}

const WORKER_URL = new URL('./sampleMajorWorker.js', import.meta.url);

/** Each sample's missing calls: `counts[s]` SNPs, listed in `snps` sample after sample, each sample's in increasing order. */
export interface MissingCallLists {
  readonly counts: Uint32Array;
  readonly snps: Uint32Array;
}

/** The missing calls (code 10) of samples 4·byteFirst … of rows in memory (pad fields are code 00, never missing). */
export function missingCallsOfRange(rows: SampleMajorRows, range: MissingScanPart): MissingCallLists {
  if (rows.target.kind !== 'memory') throw new Error('missing calls are listed from rows in memory');
  const bytes = rows.target.rows;
  // Sixteen codes a word where a row's bytes are word-aligned: most words have no missing call (a scan of every row
  // of the input, on the path between the transposition and the run's planes).
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteOffset % 4 === 0 ? Math.floor(bytes.length / 4) : 0);
  const { bytesPerSample } = rows;
  const sampleFirst = 4 * range.byteFirst;
  const sampleEnd = Math.min(rows.numSample, 4 * range.byteEnd);
  const counts = new Uint32Array(sampleEnd - sampleFirst);
  // A typed list: millions of missing calls as plain numbers cost more in garbage collection than the scan itself.
  const snps = new Uint32List();
  // Code 10 of field k of a byte (word): bit 2k + 1 set, bit 2k clear; bytes are little-endian in a word (Node's
  // typed arrays on every platform it runs on), so code k of word w is field 4·(4w − rowAt) + k.
  const listByte = (q: number, codes: number): void => {
    for (let missing = (codes >>> 1) & ~codes & 0x55; missing !== 0; missing &= missing - 1) {
      snps.push(4 * q + ((31 - Math.clz32(missing & -missing)) >>> 1));
    }
  };
  for (let sample = sampleFirst; sample < sampleEnd; sample++) {
    const rowAt = sample * bytesPerSample;
    const rowEnd = rowAt + bytesPerSample;
    const before = snps.length;
    let at = rowAt;
    const wordsFrom = words.length === 0 ? rowEnd : Math.min(rowEnd, 4 * Math.ceil(rowAt / 4));
    for (; at < wordsFrom; at++) listByte(at - rowAt, bytes[at]);
    for (let w = at / 4, wEnd = words.length === 0 ? w : Math.floor(rowEnd / 4); w < wEnd; w++, at += 4) {
      const word = words[w];
      for (let missing = (word >>> 1) & ~word & 0x55555555; missing !== 0; missing &= missing - 1) {
        snps.push(4 * (at - rowAt) + ((31 - Math.clz32(missing & -missing)) >>> 1));
      }
    }
    for (; at < rowEnd; at++) listByte(at - rowAt, bytes[at]);
    counts[sample - sampleFirst] = snps.length - before;
  }
  return { counts, snps: snps.toArray() };
}

function concatWords(parts: readonly Uint32Array[]): Uint32Array {
  const all = new Uint32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** The layout of one chunk's transposition. */
export interface ChunkLayout {
  readonly bytesPerSnp: number;
  readonly numSample: number;
  /** Bytes of each sample's row the chunk fills (its SNPs / 4, rounded up). */
  readonly bytesPerSampleChunk: number;
  /** The bytes of the SNP rows transposed: samples 4·byteFirst … 4·byteEnd − 1. */
  readonly byteFirst: number;
  readonly byteEnd: number;
}

/**
 * The blocks of a chunk's transposition: BLOCK_BYTES bytes of BLOCK_BYTES groups of 4 SNP rows (4·64 SNPs × 256 samples)
 * in, one cache line of each of the 256 sample rows out, both 16 KiB: every line is fetched once and filled whole while
 * it is in L1. (Tiles of 16 bytes over the whole chunk's SNPs fetched each input line four times from memory.)
 */
export const BLOCK_BYTES = 64;

/** Where a chunk's sample bytes go: byte q of sample 4·byteFirst + s at `firstRowAt + s · rowStride + q`. */
export interface SampleBytesOut {
  readonly bytes: Uint8Array;
  readonly rowStride: number;
  readonly firstRowAt: number;
}

/**
 * Byte q of sample s's piece holds the codes of SNPs 4q … 4q + 3 of the chunk: a 4 × 4 transpose of 2-bit codes per
 * group of 4 SNPs and 4 samples (one byte of each of the 4 SNP rows gives one byte of each of 4 samples).
 * The four bytes become one uint32 (code of SNP r, sample c at bit 8r + 2c), transposed in place by two delta swaps
 * (2 × 2 codes, then 2 × 2 blocks): bit 8c + 2r, so byte c is sample c's byte. Why: ~12 operations per 4 samples
 * where extracting each code took ~48; and in blocks (BLOCK_BYTES) so that both sides stay in cache.
 */
export function transposeChunk(snpRows: Uint8Array, layout: ChunkLayout, out: SampleBytesOut): void {
  const { bytesPerSnp, numSample, bytesPerSampleChunk, byteFirst, byteEnd } = layout;
  const { bytes, rowStride } = out;
  const fullBytes = numSample >> 2;
  // Sample 4·b's piece starts at rowsAt + 4·b·rowStride.
  const rowsAt = out.firstRowAt - 4 * byteFirst * rowStride;
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
          let at = rowsAt + 4 * b * rowStride + q;
          bytes[at] = w;
          bytes[(at += rowStride)] = w >>> 8;
          bytes[(at += rowStride)] = w >>> 16;
          bytes[at + rowStride] = w >>> 24;
        }
        // The last byte of a SNP row holds fewer than 4 samples.
        for (; b < tileEnd; b++) {
          const w = transposedCodes(snpRows[row0 + b] | (snpRows[row1 + b] << 8) | (snpRows[row2 + b] << 16) | (snpRows[row3 + b] << 24));
          let at = rowsAt + 4 * b * rowStride + q;
          for (let k = 0; k < numSample - 4 * b; k++, at += rowStride) bytes[at] = w >>> (8 * k);
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
