// `run --individuals` from a PLINK .bed whose rows are whole .bed records (no sample selection, variants selected by
// their descriptions): the transpose workers read their own ranges of SNPs from the file, turn PLINK's codes into
// SPEC §1's and transpose them into the rows in memory, so that the main thread does no per-SNP work (at 20,000 samples
// × 50,000 SNPs its read, decode and copy of 250 MB were most of the run's input stage). Each task is a range of SNPs
// (a multiple of 256, so that its bytes of a sample row are whole 64-byte blocks of transposeChunk) and writes only its
// own bytes of every sample row.
import type { BedRecords } from './genotypeSource.js';
import { readRecords } from './bedRecordReads.js';
import { ChunkWriterPool, type ChunkWriterPoolStart, missingCallsOfRange, transposeChunk, BLOCK_BYTES, type BedRangePart, type MissingCallLists, type SampleMajorRows } from './sampleMajorChunks.js';

/** About how many bytes of .bed records a task reads (enough to amortize a task, small enough to balance the workers). */
const TASK_BYTES = 4 << 20;
/** How often a stop of the run is passed on to the workers, in milliseconds. */
const STOP_POLL_MS = 20;
/** SNPs per task are a multiple of this: BLOCK_BYTES bytes of each sample row. */
const SNP_GRAIN = 4 * BLOCK_BYTES;

/** SNPs per task for `numSnp` SNPs of `bytesPerSnp` bytes on `threads` workers: about TASK_BYTES, at least 2 tasks a worker. */
export function bedSnpsPerTask(numSnp: number, bytesPerSnp: number, threads: number): number {
  const bySize = SNP_GRAIN * Math.max(1, Math.floor(TASK_BYTES / bytesPerSnp / SNP_GRAIN));
  const byBalance = SNP_GRAIN * Math.max(1, Math.ceil(numSnp / (2 * threads) / SNP_GRAIN));
  return Math.min(bySize, byBalance);
}

/** What transposeBedRecords returns. */
export interface TransposedBed {
  readonly missingCalls: MissingCallLists;
  /** The rows' SHA-256 (hex), or null where no worker computed it. */
  readonly rowsSha256: string | null;
}

/**
 * Fills `rows` (rows in memory) from the .bed records of `records` — on `threads` worker threads, or this one when
 * `threads` is 1 — and returns each sample's missing calls, listed after `onTransposed` is told that the rows are final
 * (a run uses them meanwhile), and the rows' SHA-256 where the workers computed it beside the lists (null on one
 * thread). Once `stopped()` says so no further range is started, and the promise rejects.
 * @throws UserError naming the .bed when it cannot be read (or shrank since it was opened).
 */
export async function transposeBedRecords(
  records: BedRecords, rows: SampleMajorRows,
  options: {
    readonly threads: number; readonly stopped?: () => boolean; readonly onTransposed?: () => void;
    /** Workers started ahead (ChunkWriterPool.start) of `threads` threads; absent or null: started here. */
    readonly startedWorkers?: ChunkWriterPoolStart | null;
  },
): Promise<TransposedBed> {
  const { threads } = options;
  const onTransposed = options.onTransposed ?? ((): void => undefined);
  const stopped = options.stopped ?? ((): boolean => false);
  if (records.numSample !== rows.numSample) throw new Error(`.bed records of ${records.numSample} samples for rows of ${rows.numSample}`);
  const numSnp = records.snpIndices.length;
  const snpsPerTask = bedSnpsPerTask(numSnp, rows.bytesPerSnp, threads);
  const parts: BedRangePart[] = [];
  for (let snpFirst = 0; snpFirst < numSnp; snpFirst += snpsPerTask) {
    parts.push({ bedPath: records.bedPath, snpIndices: records.snpIndices.slice(snpFirst, snpFirst + snpsPerTask), snpFirst });
  }
  const checkStopped = (): void => {
    if (stopped()) throw new Error(`${records.bedPath}: the transposition was stopped`);
  };
  if (threads <= 1) {
    for (const part of parts) {
      checkStopped();
      transposeBedRange(rows, part);
    }
    onTransposed();
    return { missingCalls: missingCallsOfRange(rows, { byteFirst: 0, byteEnd: rows.bytesPerSnp }), rowsSha256: null };
  }
  const started = options.startedWorkers ?? ChunkWriterPool.start(threads);
  if (started.numThreads !== threads) throw new Error(`transpose workers of ${started.numThreads} threads for ${threads}`);
  const pool = await started.complete(rows);
  // Each worker is handed its share of the ranges at once: a worker that had to ask the main thread for its next
  // range waited whenever that thread was busy (opening the GPU blocks it for 0.1–0.2 s). A stop reaches the workers
  // through shared memory, before their next range.
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const passStop = (): void => {
    if (stopped()) Atomics.store(stop, 0, 1);
  };
  passStop();
  const stopPoll = setInterval(passStop, STOP_POLL_MS);
  try {
    const shares = Array.from({ length: threads }, (_, t) => parts.slice(Math.floor((t * parts.length) / threads), Math.floor(((t + 1) * parts.length) / threads)));
    await Promise.all(shares.filter((share) => share.length > 0).map((share) => pool.run({ kind: 'bed', parts: share, stop })));
    checkStopped();
    onTransposed();
    const hashing = pool.rowsSha256();
    hashing.catch(() => undefined);
    const missingCalls = await pool.missingCalls();
    return { missingCalls, rowsSha256: await hashing };
  } finally {
    clearInterval(stopPoll);
    await pool.close();
  }
}

/** The records of one task, per thread (grown as needed). */
let recordBuffer = new Uint8Array(0);

/**
 * Reads the .bed records of `part`, turns PLINK's codes into SPEC §1's (the NOT of each byte, pad fields cleared) and
 * transposes them into the rows in memory at SNP part.snpFirst.
 */
export function transposeBedRange(rows: SampleMajorRows, part: BedRangePart): void {
  const { target, bytesPerSnp, bytesPerSample, numSample } = rows;
  if (target.kind !== 'memory') throw new Error('.bed records are transposed into rows in memory');
  const numRecord = part.snpIndices.length;
  // Whole groups of 4 SNPs, the rows past the last zero (pad fields of the sample rows); whole words for the NOT.
  const size = Math.ceil((4 * Math.ceil(numRecord / 4) * bytesPerSnp) / 4) * 4;
  if (recordBuffer.length < size) recordBuffer = new Uint8Array(size);
  const records = recordBuffer.subarray(0, size);
  readRecords(part, bytesPerSnp, records);
  const numBytes = numRecord * bytesPerSnp;
  const words = new Uint32Array(records.buffer, 0, numBytes >> 2);
  for (let w = 0; w < words.length; w++) words[w] = ~words[w];
  for (let b = 4 * words.length; b < numBytes; b++) records[b] = ~records[b] & 0xff;
  records.fill(0, numBytes);
  const samplesInLastByte = numSample - 4 * (bytesPerSnp - 1);
  if (samplesInLastByte < 4) {
    const mask = (1 << (2 * samplesInLastByte)) - 1;
    for (let r = 0, last = bytesPerSnp - 1; r < numRecord; r++, last += bytesPerSnp) records[last] &= mask;
  }
  transposeChunk(records, { bytesPerSnp, numSample, bytesPerSampleChunk: Math.ceil(numRecord / 4), byteFirst: 0, byteEnd: bytesPerSnp }, {
    bytes: target.rows, rowStride: bytesPerSample, firstRowAt: part.snpFirst / 4,
  });
}
