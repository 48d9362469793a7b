// Device finalize's own buffers — status, checksum partials, records — and what 2-way and 3-way finalize share
// at the end of a request: zero the status, submit, read status, partials and records back, combine them. The
// sets form a ring, so that a request's results (its records read last) come back while the next request runs.
// 2-way records come back in key order as the output lays them out (3 words, pairRecordPrograms.ts); 3-way
// records as the GPU appended them (value bits, key: 2 words), put in key order on the host (recordOrderPool.ts).

import { noRecordsToRelease, type DenseValueKind, type PairFinalizeResult, type PairRecords } from '../../../pairFinalize.js';
import type { HistogramLayout } from '../../../../core/histogramLayout.js';
import { histogramCountsOf, histogramWords } from '../programs/wgsl/histogramWgsl.js';
import { FINALIZE2_PARTIAL_WORDS, FINALIZE2_STATUS_WORDS } from './finalize2Program.js';
import { GrowingBuffers } from '../runtime/growingBuffers.js';
import { sumPartials } from './pairFinalizeWebgpu.js';
import type { Dispatch, Pending, WebgpuRunner } from '../runtime/webgpuRunner.js';

/** u32 words of one record: 2-way [2i + a, 2j + b, value bits], 3-way [value bits, key]. */
export type WordsPerRecord = 2 | 3;

/** Records room of the first finalize request; grown to what a request needed when it overflows. */
const INITIAL_RECORD_CAPACITY = 1 << 16;

/**
 * Records read back together with the status and partials (512 KiB: a copy far shorter than a request's kernels).
 * A request with no more needs no second read-back, which the queue would run only after the next request's
 * kernels (queued meanwhile) — its result would wait for them.
 */
const RECORDS_WITH_STATUS = INITIAL_RECORD_CAPACITY;

/**
 * Scratch sets: one request uses a set from its first submit until its records are read back; two let the
 * engine's next request (it runs one ahead) submit meanwhile. GPU memory: per set the status, partials
 * (32 bytes per finalize workgroup, a few MiB for the largest panels) and records (at most one storage binding;
 * as many as the most a request needed, which the engine bounds to 2^24 per 2-way panel, 192 MiB at 12 bytes, and
 * 2^23 per 3-way batch, 64 MiB at 8 bytes).
 */
const FINALIZE_SCRATCH_SETS = 2;

/** The status, partials, records and histogram buffers a finalize dispatch writes. */
export interface FinalizeOutputBuffers {
  readonly partials: GPUBuffer;
  readonly status: GPUBuffer;
  readonly records: GPUBuffer;
  /** The request's histogram counts (histogramWgsl.ts), zeroed at each submit; a small unused buffer without. */
  readonly histogram: GPUBuffer;
}

/** Records room shared by all sets: what the last overflow needed, within one storage binding. */
class RecordRoom {
  private capacity = INITIAL_RECORD_CAPACITY;

  constructor(private readonly maxBindingBytes: number) {}

  /** Most records of `wordsPerRecord` words that one binding holds. */
  maxRecords(wordsPerRecord: WordsPerRecord): number {
    return Math.floor(this.maxBindingBytes / (4 * wordsPerRecord));
  }

  /** Room of the next submit (0 without records). */
  forRequest(wantsRecords: boolean, wordsPerRecord: WordsPerRecord): number {
    return wantsRecords ? Math.min(this.capacity, this.maxRecords(wordsPerRecord)) : 0;
  }

  grow(numRecords: number): void {
    this.capacity = Math.max(this.capacity, numRecords);
  }
}

/** What one finalize submit writes: the set's buffers, its partials and its records room (0 without records). */
export interface FinalizeTarget {
  readonly buffers: FinalizeOutputBuffers;
  readonly numPartials: number;
  readonly wantsRecords: boolean;
  readonly wordsPerRecord: WordsPerRecord;
  readonly recordCapacity: number;
  /** The histogram the request counts in, or null. */
  readonly histogram: HistogramLayout | null;
}

/** Every pair's value of a request, read back with its status (mgemm/pairFinalize.ts DenseValues). */
export interface DenseRead {
  readonly kind: DenseValueKind;
  readonly buffer: GPUBuffer;
  readonly numBytes: number;
}

/** One set: the buffers of a finalize request in flight (held by it alone), and its submit and read-back. */
export class FinalizeScratch {
  private readonly buffers: GrowingBuffers<keyof FinalizeOutputBuffers>;

  constructor(private readonly runner: WebgpuRunner, private readonly room: RecordRoom) {
    this.buffers = new GrowingBuffers(runner);
  }

  /** Buffers for a submit with `numPartials` partials, the records room of the next request and its histogram. */
  targetFor(numPartials: number, wantsRecords: boolean, wordsPerRecord: WordsPerRecord, histogram: HistogramLayout | null = null): FinalizeTarget {
    const recordCapacity = this.room.forRequest(wantsRecords, wordsPerRecord);
    const buffers = {
      partials: this.buffers.get('partials', numPartials * FINALIZE2_PARTIAL_WORDS * 4),
      status: this.buffers.get('status', FINALIZE2_STATUS_WORDS * 4),
      records: this.buffers.get('records', recordCapacity * 4 * wordsPerRecord),
      histogram: this.buffers.get('histogram', histogram === null ? 0 : histogramWords(histogram) * 4),
    };
    return { buffers, numPartials, wantsRecords, wordsPerRecord, recordCapacity, histogram };
  }

  /**
   * Zeroes the status and submits `dispatches` (which write `target`'s buffers) with the read-back of the status,
   * the partials (2-way layout) and the first records. The result's collect() reads the remaining records when
   * there are more, as the dispatches left them (see the top of this file); records that overflowed their buffer
   * grow the room and give null: the caller submits its request again (with this set) with room for all of them.
   */
  async submit(dispatches: readonly Dispatch[], target: FinalizeTarget, dense: DenseRead | null = null): Promise<Pending<PairFinalizeResult | null>> {
    const { buffers: { status, partials, records, histogram }, numPartials, wantsRecords, wordsPerRecord, recordCapacity } = target;
    const recordBytes = 4 * wordsPerRecord;
    this.runner.upload(status, new Uint32Array(FINALIZE2_STATUS_WORDS));
    const histogramBytes = target.histogram === null ? 0 : histogramWords(target.histogram) * 4;
    // Zeroed at every submit: a request submitted again (records overflow) counts again from nothing.
    if (histogramBytes > 0) this.runner.upload(histogram, new Uint32Array(histogramBytes / 4));
    const numStaged = Math.min(recordCapacity, RECORDS_WITH_STATUS);
    // Dense values come back first after the status and partials (16 + 32·n bytes: float64-aligned), with this submit
    // (their buffer is shared scratch, which the next request's submit overwrites).
    const pending = await this.runner.submitWithReadBack(dispatches, [
      { buffer: status, numBytes: FINALIZE2_STATUS_WORDS * 4 },
      { buffer: partials, numBytes: numPartials * FINALIZE2_PARTIAL_WORDS * 4 },
      ...(dense !== null ? [{ buffer: dense.buffer, numBytes: dense.numBytes }] : []),
      ...(histogramBytes > 0 ? [{ buffer: histogram, numBytes: histogramBytes }] : []),
      ...(numStaged > 0 ? [{ buffer: records, numBytes: numStaged * recordBytes }] : []),
    ]);
    return {
      collect: async () => {
        const [statusWords, partialWords, ...rest] = await pending.collect();
        const denseValues = dense === null ? null : { kind: dense.kind, words: rest.shift() as Uint32Array };
        const histogramWordsRead = histogramBytes > 0 ? rest.shift() : undefined;
        const stagedWords = rest.shift();
        if (statusWords[1] !== 0) return { kind: 'needsHost', reason: 'a passing value outside [0, 16)' };
        const numRecords = wantsRecords ? statusWords[0] : 0;
        if (numRecords > recordCapacity) {
          if (numRecords > this.room.maxRecords(wordsPerRecord)) return { kind: 'needsHost', reason: `${numRecords} records exceed one binding` };
          this.room.grow(numRecords);
          return null;
        }
        // More records than came with the status: all of them again (at most RECORDS_WITH_STATUS read twice), left
        // where they are mapped until the caller releases them.
        let found: PairRecords;
        if (numRecords <= numStaged) {
          found = { count: numRecords, words: (stagedWords ?? new Uint32Array(0)).subarray(0, numRecords * wordsPerRecord), release: noRecordsToRelease };
        } else {
          const mapped = await this.runner.readBackMapped({ buffer: records, numBytes: numRecords * recordBytes });
          found = { count: numRecords, words: mapped.words.subarray(0, numRecords * wordsPerRecord), release: mapped.release };
        }
        const counts = target.histogram === null || histogramWordsRead === undefined ? null : histogramCountsOf(target.histogram, histogramWordsRead);
        return { kind: 'done', ...sumPartials(partialWords, numPartials), records: found, denseValues, histogram: counts };
      },
    };
  }

  destroy(): void {
    this.buffers.destroy();
  }
}

/** A set held by one request: `release()` (once, when its result is complete) hands it to the next in turn. */
export interface FinalizeScratchLease {
  readonly scratch: FinalizeScratch;
  release(): void;
}

/**
 * FINALIZE_SCRATCH_SETS sets handed out in turn, in the order requests ask: a request gets the next set once that
 * set's previous holder has released it. A request takes its set before it waits for its turn to submit, so a
 * request that submits again (records overflow) never waits for one that waits for its set.
 */
export class FinalizeScratchRing {
  private readonly sets: FinalizeScratch[];
  /** Per set: settles when its latest holder releases it. */
  private readonly released: Promise<void>[];
  private nextIdx = 0;

  constructor(runner: WebgpuRunner) {
    const room = new RecordRoom(runner.capabilities.maxStorageBufferBindingSize);
    this.sets = Array.from({ length: FINALIZE_SCRATCH_SETS }, () => new FinalizeScratch(runner, room));
    this.released = this.sets.map(() => Promise.resolve());
  }

  async acquire(): Promise<FinalizeScratchLease> {
    const idx = this.nextIdx;
    this.nextIdx = (idx + 1) % this.sets.length;
    const previous = this.released[idx];
    let release = (): void => undefined;
    this.released[idx] = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    return { scratch: this.sets[idx], release };
  }

  destroy(): void {
    for (const set of this.sets) set.destroy();
  }
}
