// Sample-major rows in memory (`run --individuals`): a genotype source's SNP rows transposed by the transpose workers
// (sampleMajor.ts) straight into a SharedArrayBuffer that the engine reads blocks of samples from — no file written and
// read back (at 20,000 samples × 50,000 SNPs a prepared file cost a write, a hash and a read of 250 MB each).
//
// When the source counts its rows beforehand (a .bed selected by descriptions) the sizes are known at once, so a run
// starts — a GPU device opens, its programs compile — while the rows are read and transposed; its block build waits on
// `state` (SAMPLE_ROWS_PENDING until the rows are final: READY, or FAILED). Otherwise the rows are gathered first.
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { UserError } from '../core/errors.js';
import { traceMark } from '../core/trace.js';
import { transposeBedRecords } from './bedSampleRows.js';
import { BED_HEADER_BYTES, plinkPathsOf } from './plinkFileset.js';
import { bedRecordsOf, type BedRecords, type GenotypeSource, type SnpInfo } from './genotypeSource.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import { startBytesHash } from './preparedFileCheck.js';
import type { PreparedSidecar } from './preparedSidecar.js';
import { sidecarOf, SnpColumns, transposeThreads, type PrepareOptions } from './prepareGenotypes.js';
import { CHUNK_BYTES, SampleMajorWriter } from './sampleMajor.js';
import { ChunkWriterPool, type ChunkWriterPoolStart, type MissingCallLists } from './sampleMajorChunks.js';

/** `state[0]` while the rows are written, once they are final, and when they never will be. */
export const SAMPLE_ROWS_PENDING = 0;
export const SAMPLE_ROWS_READY = 1;
export const SAMPLE_ROWS_FAILED = 2;

/** What the rows in memory turned out to be, once all are written. */
export interface SampleRowsResult {
  /** The sidecar a prepared sample-major file of them would have (packedSha256: of `rows`). */
  readonly sidecar: PreparedSidecar;
  readonly missingCalls: MissingCallLists;
}

/** A source's samples as rows in memory, being written. */
export interface SampleRowsInMemory {
  /** numSample rows of ceil(numSnp / 4) bytes (SPEC §1, pad fields zero), over a SharedArrayBuffer; final once READY. */
  readonly rows: Uint8Array;
  /** One Int32 over a SharedArrayBuffer: SAMPLE_ROWS_PENDING, READY or FAILED (Atomics.notify on each change). */
  readonly state: Int32Array;
  readonly numSample: number;
  readonly numSnp: number;
  /** Settles after the rows are final with the sidecar and the missing calls; rejects with the reader's error. */
  readonly done: Promise<SampleRowsResult>;
  /** The .bed records the rows are transposed from, when they are whole records; null otherwise. */
  readonly bedRecords: BedRecords | null;
  /** Stops reading and transposing (a run that failed first); `done` then rejects. */
  stop(): void;
}

/** Options of {@link startSampleRowsInMemory}. */
export type SampleRowsOptions = Pick<PrepareOptions, 'skippedSites' | 'selection'> & {
  /**
   * The run does not wait for the rows (a GPU transposes the .bed records itself; the rows give the missing calls and
   * the hash): the transposition takes half the cores, leaving the rest to the run's own reads and uploads.
   */
  readonly inBackground?: boolean;
  /**
   * Transposition workers started ahead (startTransposeWorkersAhead): used where the rows are whole .bed records
   * transposed on as many threads, else cancelled.
   */
  readonly startedWorkers?: ChunkWriterPoolStart | null;
};

/**
 * Starts transposing `source` into rows in memory; returns once the sizes are known (at once for a source that counts
 * its rows, else after they are all read and gathered).
 * @throws UserError (or `done` rejects with it) for read errors of the source or a source without SNPs.
 */
export async function startSampleRowsInMemory(source: GenotypeSource, options: SampleRowsOptions): Promise<SampleRowsInMemory> {
  const numSample = source.sampleIds.length;
  const bytesPerSnp = packedBytesPerVector(numSample);
  const bed = bedRecordsOf(source);
  if (bed !== null && source.snps != null && bed.numSample === numSample && bed.snpIndices.length === source.snps.length && source.snps.length > 0) {
    return startBedRowsInMemory(source, { bed, snps: source.snps }, options);
  }
  void options.startedWorkers?.cancel();
  const columns = new SnpColumns();
  const stopped = { now: false };
  const rowsOf = async function* (): AsyncGenerator<Uint8Array> {
    for await (const row of source.rows()) {
      if (stopped.now) throw new Error('sample rows in memory: stopped');
      columns.add(row);
      yield row.packed.subarray(0, bytesPerSnp);
    }
  };
  let rowSource: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  let numSnp: number;
  if (source.numSnpKnown !== null && source.numSnpKnown > 0) {
    numSnp = source.numSnpKnown;
    rowSource = rowsOf();
  } else {
    const gathered = await gatherRows(rowsOf(), bytesPerSnp);
    numSnp = gathered.numRows;
    rowSource = gathered.chunks;
  }
  if (numSnp === 0) throw new UserError(`${source.path}: no SNPs to prepare`);
  const rows = new Uint8Array(new SharedArrayBuffer(numSample * packedBytesPerVector(numSnp)));
  const state = new Int32Array(new SharedArrayBuffer(4));
  const setState = (value: number): void => {
    Atomics.store(state, 0, value);
    Atomics.notify(state, 0);
  };
  const done = (async (): Promise<SampleRowsResult> => {
    const writer = await SampleMajorWriter.create({ kind: 'memory', rows }, { numSnp, numSample, threads: transposeThreads(numSnp * bytesPerSnp) });
    try {
      for await (const snpRows of rowSource) await writer.addRows(snpRows);
      if (columns.numSnp !== numSnp) throw new Error(`${source.path}: ${columns.numSnp} SNPs came where ${numSnp} were counted`);
      await writer.finishRows();
      traceMark('input transposed in memory');
      setState(SAMPLE_ROWS_READY);
      // The hash and the missing calls while the run computes.
      const hashing = startBytesHash(rows);
      const missingCalls = await writer.missingCalls();
      const sidecar = sidecarOf(source, columns, {
        vectors: 'samples', packedSha256: await hashing.digest, vectorOrder: null, skippedSites: options.skippedSites, selection: options.selection,
      });
      return { sidecar, missingCalls };
    } finally {
      await writer.close();
    }
  })();
  done.catch(() => setState(SAMPLE_ROWS_FAILED));
  return { rows, state, numSample, numSnp, done, bedRecords: null, stop: () => { stopped.now = true; } };
}

/** The rows of a source that is whole .bed records, read, decoded and transposed by the workers (bedSampleRows.ts). */
function startBedRowsInMemory(
  source: GenotypeSource, records: { readonly bed: BedRecords; readonly snps: readonly SnpInfo[] }, options: SampleRowsOptions,
): SampleRowsInMemory {
  const numSample = source.sampleIds.length;
  const numSnp = records.snps.length;
  const bytesPerSample = packedBytesPerVector(numSnp);
  const rows = new Uint8Array(new SharedArrayBuffer(numSample * bytesPerSample));
  const state = new Int32Array(new SharedArrayBuffer(4));
  const setState = (value: number): void => {
    Atomics.store(state, 0, value);
    Atomics.notify(state, 0);
  };
  const layout = { target: { kind: 'memory' as const, rows }, bytesPerSample, numSample, bytesPerSnp: packedBytesPerVector(numSample) };
  const stopped = { now: false };
  const done = (async (): Promise<SampleRowsResult> => {
    // The run starts on the rows while the workers list the missing calls and hash the rows (a worker started for the
    // hash where the main thread transposes alone).
    const threads = bedTransposeThreads(rows.length, { inBackground: options.inBackground === true });
    const started: { hashing: ReturnType<typeof startBytesHash> | null } = { hashing: null };
    const onTransposed = (): void => {
      traceMark('input transposed in memory');
      setState(SAMPLE_ROWS_READY);
      if (threads <= 1) started.hashing = startBytesHash(rows);
    };
    let startedWorkers = options.startedWorkers ?? null;
    if (startedWorkers !== null && startedWorkers.numThreads !== threads) {
      void startedWorkers.cancel();
      startedWorkers = null;
    }
    const { missingCalls, rowsSha256 } = await transposeBedRecords(records.bed, layout, { threads, stopped: () => stopped.now, onTransposed, startedWorkers });
    const { hashing } = started;
    if (rowsSha256 === null && hashing === null) throw new Error('missing calls listed before the rows were final');
    traceMark('input missing calls listed');
    const columns = SnpColumns.of(records.snps, missingCalls.snps.length);
    const sidecar = sidecarOf(source, columns, {
      vectors: 'samples', packedSha256: rowsSha256 ?? await hashing!.digest, vectorOrder: null, skippedSites: options.skippedSites, selection: options.selection,
    });
    return { sidecar, missingCalls };
  })();
  done.catch(() => setState(SAMPLE_ROWS_FAILED));
  return { rows, state, numSample, numSnp, done, bedRecords: records.bed, stop: () => { stopped.now = true; } };
}

/**
 * Starts the workers that will transpose a .bed's records into rows in memory (not in the background) before the
 * fileset (`inputPath`: its prefix or .bed) is opened, so that their start overlaps the .bim and .fam reads: as many
 * as bedTransposeThreads gives for the .bed's records, or null where the main thread alone would transpose them.
 * `startSampleRowsInMemory` takes them as `startedWorkers` (and cancels them where its rows turn out otherwise).
 */
export function startTransposeWorkersAhead(inputPath: string): ChunkWriterPoolStart | null {
  const paths = plinkPathsOf(inputPath);
  if (paths === null) return null;
  let recordBytes: number;
  try {
    recordBytes = statSync(paths.bed).size - BED_HEADER_BYTES;
  } catch {
    // Opening the fileset reports it.
    return null;
  }
  const threads = bedTransposeThreads(recordBytes, { inBackground: false });
  return threads > 1 ? ChunkWriterPool.start(threads) : null;
}

/**
 * Worker threads that read and transpose `numBytes` of .bed records: one per core (at most 16; half of them in the
 * background, where a GPU run read its records 0.13–0.2 s faster beside 8 workers than beside 16) from 4 MiB on (a
 * worker starts in ~50 ms, while the main thread starts the run beside them); below, the main thread alone.
 */
function bedTransposeThreads(numBytes: number, { inBackground }: { readonly inBackground: boolean }): number {
  if (numBytes < 4 << 20) return 1;
  const cores = Math.min(16, availableParallelism());
  // Never 1 in the background: one thread transposes on the main thread, which the run needs.
  return inBackground ? Math.max(2, Math.floor(cores / 2)) : cores;
}

/** A source's rows read whole into chunks of about CHUNK_BYTES (its row count unknown until then). */
async function gatherRows(rows: AsyncIterable<Uint8Array>, bytesPerSnp: number): Promise<{ readonly chunks: Uint8Array[]; readonly numRows: number }> {
  const rowsPerChunk = Math.max(1, Math.floor(CHUNK_BYTES / bytesPerSnp));
  const chunks: Uint8Array[] = [];
  let inChunk = rowsPerChunk;
  let numRows = 0;
  for await (const row of rows) {
    if (inChunk === rowsPerChunk) {
      chunks.push(new Uint8Array(rowsPerChunk * bytesPerSnp));
      inChunk = 0;
    }
    chunks[chunks.length - 1].set(row, inChunk * bytesPerSnp);
    inChunk++;
    numRows++;
  }
  if (chunks.length > 0) chunks[chunks.length - 1] = chunks[chunks.length - 1].subarray(0, inChunk * bytesPerSnp);
  return { chunks, numRows };
}
