// The lines of PLINK's `.ld` table from batches of pairs (ldTablePairs.ts), in order. Natively where r²'s addon is
// built: per batch the span's packed codes are read, and one job on a pool thread makes the planes, each pair's double
// r² and the lines' bytes, while the main thread writes the previous batch's (up to `threads` jobs at once; D′ modes
// take the 3×3 tables from the addon and run PLINK's haplotype EM in JS, every other batch on a worker thread with
// --threads ≥ 2). Without the addon, each pair's table in JS
// (GenotypeTables) and the lines as strings: the same bytes.
import { closeSync, readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { loadNativeR2Addon, type NativeR2Addon } from '../../analyses/r2/index.js';
import {
  ldLocusText, ldTableLineOfLoci, openForReading, packedBytesPerVector, plinkPowersOfTen, type PreparedSidecar, type TextOutput,
} from '../../io/index.js';
import { LineBatch } from '../recordTableWriter.js';
import { GenotypeTables } from './genotypeTables.js';
import type { LdPairBatch } from './ldTablePairs.js';
import type { DprimeReply, DprimeRequest } from './ldDprimeWorker.js';
import { dosageR2, haplotypeLd, haplotypeLdOfTables, type DprimeKind } from './twoLocusLd.js';

/** What the table shows. */
export interface LdTableOptions {
  readonly dprime: DprimeKind | null;
  readonly minR2: number;
}

/** Where the genotypes are and how the lines are made. */
export interface LdChunkSource {
  /** The prepared input's sidecar (vectors in SNP order) and its packed file. */
  readonly sidecar: PreparedSidecar;
  readonly packedPath: string;
  /** SNP columns' width (plinkSnpColumnWidth). */
  readonly snpWidth: number;
  /** Batches formatted at once (pool threads). */
  readonly threads: number;
  /** JS even where the addon is built (tests compare the two). */
  readonly forceJs?: boolean;
  /** Spans of more codes take the JS path (default MAX_SPAN_BYTES; tests make it small). */
  readonly maxSpanBytes?: number;
}

/** ldText.h kLdTextSlack: room past the loci and the lines that the native loop's fixed-size stores may touch. */
const LD_TEXT_SLACK = 64;

/** Finished batches whose bytes may wait for the output at once. */
const MAX_UNWRITTEN = 2;

/**
 * Codes of one batch's span read at most (its planes take twice that, per job in flight): larger spans, only from
 * inter-chr records scattered over a large file, take the JS path.
 */
const MAX_SPAN_BYTES = 128 << 20;

/** Writes batches of pairs as table lines to an output. */
export interface LdLineWriter {
  add(batch: LdPairBatch): Promise<void>;
  /** Writes what is pending; returns the lines written. */
  finish(): Promise<number>;
  close(): void;
}

/** The writer for `source`: native where the addon is built (and the loci's text is addressable by 32-bit offsets). */
export function ldLineWriter(source: LdChunkSource, options: LdTableOptions, output: TextOutput): LdLineWriter {
  const loaded = source.forceJs === true ? null : loadNativeR2Addon();
  const js = new JsLineWriter(source, options, output);
  const loci = loaded !== null && loaded.available ? locusBytes(source.sidecar, source.snpWidth) : null;
  return loaded !== null && loaded.available && loci !== null ? new NativeLineWriter(loaded.addon, source, options, output, js, loci) : js;
}

/** Every SNP's locus columns, as the native lines copy them. */
interface LocusBytes {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
  readonly longest: number;
}

/**
 * Every SNP's locus columns as bytes (UTF-8, as the text output writes strings), LD_TEXT_SLACK bytes of room after
 * them (the native loop copies 32 bytes at a time), and where each starts; null past 32-bit offsets.
 */
function locusBytes(sidecar: PreparedSidecar, snpWidth: number): LocusBytes | null {
  const { snps } = sidecar;
  const offsets = new Uint32Array(snps.id.length + 1);
  const texts = snps.id.map((id, s) => ldLocusText({ chromosome: snps.chrom[s], position: snps.pos[s], id }, snpWidth));
  // ASCII text (the usual .bim) is measured and written at once, each text's bytes its characters; else text by text.
  const joined = texts.join('');
  const ascii = Buffer.byteLength(joined, 'utf8') === joined.length;
  let total = 0;
  let longest = 0;
  for (let s = 0; s < texts.length; s++) {
    const length = ascii ? texts[s].length : Buffer.byteLength(texts[s], 'utf8');
    total += length;
    if (total + LD_TEXT_SLACK >= 2 ** 32) return null;
    offsets[s + 1] = total;
    longest = Math.max(longest, length);
  }
  const bytes = Buffer.alloc(total + LD_TEXT_SLACK);
  if (ascii) bytes.write(joined, 0, 'latin1');
  else texts.forEach((text, s) => bytes.write(text, offsets[s], 'utf8'));
  return { bytes, offsets, longest };
}

/** Buffers handed back for reuse: one of at least the asked length, else a new one (never from Node's shared slab). */
class BufferPool {
  private readonly free: Buffer[] = [];

  take(length: number): Buffer {
    const buffer = this.free.pop();
    return buffer !== undefined && buffer.length >= length ? buffer : Buffer.allocUnsafeSlow(Math.max(length, 2 * (buffer?.length ?? 0)));
  }

  give(buffer: Buffer): void {
    this.free.push(buffer);
  }
}

/** haplotypeLdOfTables into new arrays. */
function dprimeValues(counts: Uint32Array, numPairs: number, kind: DprimeKind): DprimeReply {
  const reply = { values: new Float64Array(numPairs), extras: new Float64Array(numPairs) };
  haplotypeLdOfTables(counts, numPairs, kind, reply.values, reply.extras);
  return reply;
}

/** ldDprimeWorker.ts's thread: requests answered in order. */
class DprimeWorker {
  private readonly worker = new Worker(new URL('./ldDprimeWorker.js', import.meta.url));
  private readonly waiting: { resolve: (reply: DprimeReply) => void; reject: (error: unknown) => void }[] = [];

  constructor() {
    this.worker.on('message', (reply: DprimeReply) => this.waiting.shift()?.resolve(reply));
    this.worker.on('error', (error) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(error);
    });
    this.worker.on('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`the D′ worker thread exited (${code}) before answering`));
    });
  }

  /** The EM of `numPairs` tables in `counts` (moved to the worker). */
  request(counts: ArrayBuffer, numPairs: number, kind: DprimeKind): Promise<DprimeReply> {
    return new Promise<DprimeReply>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      const request: DprimeRequest = { counts: new Uint32Array(counts), numPairs, kind };
      this.worker.postMessage(request, [counts]);
    });
  }

  close(): void {
    void this.worker.terminate();
  }
}

/** A job in flight: its bytes once done. */
interface PendingText {
  readonly done: Promise<{ readonly numBytes: number; readonly numLines: number }>;
  readonly out: Buffer;
  readonly batch: LdPairBatch;
  /** The pooled buffer of the span's codes the job reads (null when its values were given). */
  readonly codes: Buffer | null;
}

class NativeLineWriter implements LdLineWriter {
  private readonly fd: number;
  private readonly rowBytes: number;
  private readonly powersOfTen = plinkPowersOfTen();
  private readonly maxLineBytes: number;
  private readonly pending: PendingText[] = [];
  /** Writes under way, oldest first. */
  private readonly unwritten: Promise<void>[] = [];
  private numLines = 0;
  /** D/D′ with --threads ≥ 2: a worker thread running every other batch's EM. */
  private readonly dprimeWorker: DprimeWorker | null;
  private numDprimeBatches = 0;
  /** Line buffers written out and code buffers of retired jobs, for later jobs (fresh ones were page faults and GCs). */
  private readonly outBuffers = new BufferPool();
  private readonly codeBuffers = new BufferPool();

  constructor(
    private readonly addon: NativeR2Addon, private readonly source: LdChunkSource, private readonly options: LdTableOptions,
    private readonly output: TextOutput, private readonly js: JsLineWriter, private readonly loci: LocusBytes,
  ) {
    this.fd = openForReading(source.packedPath, 'packed file');
    this.rowBytes = packedBytesPerVector(source.sidecar.numField);
    this.dprimeWorker = options.dprime !== null && source.threads >= 2 ? new DprimeWorker() : null;
    // ldText.cc ldMaxLineBytes: both loci, two value columns of at most 14 characters and a space, the newline.
    this.maxLineBytes = 2 * this.loci.longest + 2 * 15 + 1;
  }

  async add(batch: LdPairBatch): Promise<void> {
    const numSnps = batch.snpEnd - batch.snpFirst;
    if (numSnps * this.rowBytes > (this.source.maxSpanBytes ?? MAX_SPAN_BYTES)) {
      await this.drain(0);
      await this.js.add(batch);
      return;
    }
    const codes = this.codeBuffers.take(numSnps * this.rowBytes);
    const span = {
      codes: this.readCodes(codes, batch.snpFirst, numSnps), snpFirst: batch.snpFirst, numSnps, numField: this.source.sidecar.numField,
      rowBytes: this.rowBytes, pairs: batch.pairs, numPairs: batch.numPairs,
    };
    // As large as any batch of the table can be (every batch is this size or smaller): pooled buffers fit all.
    const out = this.outBuffers.take((batch.pairs.length / 2) * this.maxLineBytes + LD_TEXT_SLACK);
    const common = { minR2: this.options.minR2, lociBytes: this.loci.bytes, lociOffsets: this.loci.offsets, powersOfTen: this.powersOfTen, out };
    const dprime = this.options.dprime;
    if (dprime === null) {
      this.pending.push({ done: this.addon.ldTableText({ ...span, ...common }), out, batch, codes });
    } else {
      const countsBuffer = new ArrayBuffer(36 * batch.numPairs);
      const counts = new Uint32Array(countsBuffer);
      this.addon.ldTablesOfPairs(span, counts);
      this.codeBuffers.give(codes);
      // Every other batch's EM on the worker (when there is one), the others here meanwhile.
      const useWorker = this.dprimeWorker !== null && this.numDprimeBatches++ % 2 === 0;
      const ld = useWorker ? (this.dprimeWorker as DprimeWorker).request(countsBuffer, batch.numPairs, dprime) : Promise.resolve(dprimeValues(counts, batch.numPairs, dprime));
      const done = ld.then(({ values, extras }) =>
        this.addon.ldTableText({ ...span, codes: new Uint8Array(0), snpFirst: 0, numSnps: 0, values, extras, ...common }));
      this.pending.push({ done, out, batch, codes: null });
    }
    await this.drain(this.source.threads);
  }

  async finish(): Promise<number> {
    await this.drain(0);
    return this.numLines + this.js.numWritten;
  }

  close(): void {
    closeSync(this.fd);
    this.js.close();
    this.dprimeWorker?.close();
  }

  /**
   * Retires finished jobs, oldest first, until at most `maxInFlight` compute: each one's bytes go to the output at once
   * (written, or compressed with the output's gzipMembers, while the next jobs run), and at most MAX_UNWRITTEN
   * finished buffers wait for it.
   */
  private async drain(maxInFlight: number): Promise<void> {
    while (this.pending.length > maxInFlight) {
      const head = this.pending.shift() as PendingText;
      const { numBytes, numLines } = await head.done;
      head.batch.release();
      if (head.codes !== null) this.codeBuffers.give(head.codes);
      this.numLines += numLines;
      // writeBytes resolves once the output has consumed the buffer: it can take a later batch's lines.
      const out = head.out;
      const write = (numBytes > 0 ? this.output.writeBytes(out.subarray(0, numBytes)) : Promise.resolve()).then(() => this.outBuffers.give(out));
      // Awaited below or at the end (its failure reaches the caller there): not an unhandled rejection meanwhile.
      write.catch(() => undefined);
      this.unwritten.push(write);
      while (this.unwritten.length > MAX_UNWRITTEN) await this.unwritten.shift();
    }
    if (maxInFlight === 0) while (this.unwritten.length > 0) await this.unwritten.shift();
  }

  /** The span's packed rows, read into the front of `buffer`. */
  private readCodes(buffer: Buffer, snpFirst: number, numSnps: number): Buffer {
    const bytes = buffer.subarray(0, numSnps * this.rowBytes);
    for (let done = 0; done < bytes.length;) {
      const got = readSync(this.fd, bytes, done, bytes.length - done, snpFirst * this.rowBytes + done);
      if (got === 0) throw new Error(`packed file ended before SNP ${snpFirst + numSnps}`);
      done += got;
    }
    return bytes;
  }
}

/** Each pair's table in JS, each line a string (the path without the addon, and the reference of its tests). */
class JsLineWriter implements LdLineWriter {
  private readonly tables: GenotypeTables;
  private readonly lines: LineBatch;
  private readonly counts = new Float64Array(9);
  // Each SNP's columns, made once: a table names each SNP in many lines.
  private readonly locusTexts: (string | undefined)[] = [];

  constructor(private readonly source: LdChunkSource, private readonly options: LdTableOptions, output: TextOutput) {
    this.tables = new GenotypeTables(source.packedPath, source.sidecar.numField);
    this.lines = new LineBatch(output);
  }

  get numWritten(): number {
    return this.lines.numWritten;
  }

  async add(batch: LdPairBatch): Promise<void> {
    const { counts, options } = this;
    for (let k = 0; k < batch.numPairs; k++) {
      const snpA = batch.pairs[2 * k];
      const snpB = batch.pairs[2 * k + 1];
      this.tables.table(snpA, snpB, counts);
      let r2: number;
      let extra: number | null = null;
      if (options.dprime === null) {
        r2 = dosageR2(counts);
      } else {
        const ld = haplotypeLd(counts, options.dprime);
        r2 = Math.abs(ld.signedR2);
        extra = ld.extra;
      }
      // PLINK's test: NaN never passes.
      if (!(r2 >= options.minR2)) continue;
      if (this.lines.add(ldTableLineOfLoci(this.locusText(snpA), this.locusText(snpB), r2, extra))) await this.lines.flush();
    }
    batch.release();
    await this.lines.flush();
  }

  async finish(): Promise<number> {
    await this.lines.flush();
    return this.lines.numWritten;
  }

  close(): void {
    this.tables.close();
  }

  private locusText(snpIdx: number): string {
    const { snps } = this.source.sidecar;
    return (this.locusTexts[snpIdx] ??= ldLocusText({ chromosome: snps.chrom[snpIdx], position: snps.pos[snpIdx], id: snps.id[snpIdx] }, this.source.snpWidth));
  }
}
