// Exact top-N of a run's records (`run --top N`): a bounded record writer that keeps the N strongest records it is
// given (finalize on this thread, finalize workers' candidates, device finalize's records), the exact merge of every
// rank's candidates on rank 0, and the file's bytes.
import type { StrongerValues } from '../../analyses/index.js';
import type { RecordBar } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { MAX_TOP_RECORDS } from '../../core/limits.js';
import type { NumWay } from '../../core/types.js';
import type { RecordWriter } from './entrySink.js';

/** Tag of the candidates every rank sends to rank 0 (blockExchange.ts uses 0 and 1, runJobAsRank.ts 7). */
const TAG_TOP_RECORDS = 11;

/** What a top-N sink keeps: the `count` strongest records, `stronger` saying which values are. */
export interface TopRecordsSpec {
  readonly count: number;
  readonly stronger: StrongerValues;
}

/** Records in file layout (numWay coordinates, then the float32 value's bits), strongest first. */
export interface TakenRecords {
  readonly words: Uint32Array;
  readonly numRecords: number;
}

/**
 * Keeps the `count` strongest records appended to it, exactly. The order is total: the stronger float32 value first
 * (the value the file holds), then lower vector indices (coordinate by coordinate), then lower entry bits — the order
 * `snptally top` prints. Each record's coordinates are put in ascending vector order. NaN never ranks. Records are gathered in a buffer of up to 2·count that is sorted and cut
 * back to `count` when full; once `count` are known, a record that does not beat the weakest kept is dropped at once.
 */
export class TopRecords implements RecordWriter {
  private readonly stride: number;
  private words: Uint32Array;
  private values: Float32Array;
  private numHeld = 0;
  /** After a cut with `count` records: where the weakest kept record lies (the bar a new record must beat), else −1. */
  private weakestAt = -1;
  private readonly sign: number;
  /** The record being added, its coordinates in ascending vector order. */
  private readonly incoming: Uint32Array;

  constructor(private readonly numWay: NumWay, readonly spec: TopRecordsSpec) {
    if (!Number.isSafeInteger(spec.count) || spec.count < 1 || spec.count > MAX_TOP_RECORDS) {
      throw new RangeError(`top-N of ${spec.count} records is not in [1, ${MAX_TOP_RECORDS}]`);
    }
    this.stride = numWay + 1;
    this.sign = spec.stronger === 'larger' ? 1 : -1;
    this.incoming = new Uint32Array(this.stride);
    this.words = new Uint32Array(Math.min(2 * spec.count, 1 << 12) * this.stride);
    this.values = new Float32Array(this.words.buffer);
  }

  appendRecordWords(words: Uint32Array, numRecords: number): void {
    const { stride, numWay, incoming } = this;
    const values = new Float32Array(words.buffer, words.byteOffset, numRecords * stride);
    for (let r = 0, at = 0; r < numRecords; r++, at += stride) {
      const value = values[at + numWay];
      if (value !== value) continue;
      // Ranks write a tuple's coordinates in the order their blocks met (j before i, say); each coordinate keeps its
      // entry bit, so sorting them by vector makes one key per tuple entry, whatever the decomposition.
      for (let w = 0; w < stride; w++) incoming[w] = words[at + w];
      sortCoordinates(incoming, numWay);
      if (this.weakestAt >= 0 && this.compare(incoming, 0, value, this.weakestAt) >= 0) continue;
      if ((this.numHeld + 1) * stride > this.words.length) this.makeRoom();
      this.words.set(incoming, this.numHeld * stride);
      this.numHeld++;
    }
  }

  /**
   * The records-only bar for device finalize (mgemm/pairFinalize.ts RecordBar): once `count` records are held, the
   * value of the `count`-th strongest so far — a weaker record can never be kept, an equal one may through a smaller
   * index —, else null (also for a value the device cannot compare as bits: negative or infinite). It tightens on a
   * cut: here when none was made since `count` were held or half the room above `count` has filled since the last one.
   */
  recordBar(): RecordBar | null {
    const { count } = this.spec;
    if (this.numHeld < count) return null;
    if (this.weakestAt < 0 || 2 * this.numHeld >= 3 * count) this.cut();
    const value = this.values[this.weakestAt + this.numWay];
    if (!(value >= 0 && value < Infinity)) return null;
    // +0 for −0: the device orders non-negative values by their bits.
    const valueBits = value === 0 ? 0 : this.words[this.weakestAt + this.numWay];
    return { keep: this.sign > 0 ? 'atLeast' : 'atMost', valueBits };
  }

  /** RecordWriter.top: what this writer keeps. */
  get top(): TopRecordsSpec {
    return this.spec;
  }

  /** The strongest records so far (at most `count`), strongest first; the sink starts empty again. */
  take(): TakenRecords {
    this.cut();
    const taken = { words: this.words.slice(0, this.numHeld * this.stride), numRecords: this.numHeld };
    this.numHeld = 0;
    this.weakestAt = -1;
    return taken;
  }

  /** Negative when record `a` (in `aWords` at `aAt`, value `aValue`) is stronger than the held record at `bAt`. */
  private compare(aWords: Uint32Array, aAt: number, aValue: number, bAt: number): number {
    const bWords = this.words;
    const bValue = this.values[bAt + this.numWay];
    if (aValue !== bValue) return aValue > bValue ? -this.sign : this.sign;
    for (let w = 0; w < this.numWay; w++) {
      const diff = (aWords[aAt + w] >>> 1) - (bWords[bAt + w] >>> 1);
      if (diff !== 0) return diff;
    }
    for (let w = 0; w < this.numWay; w++) {
      const diff = (aWords[aAt + w] & 1) - (bWords[bAt + w] & 1);
      if (diff !== 0) return diff;
    }
    return 0;
  }

  /** Grows the buffer up to 2·count records, then cuts it back to `count`. */
  private makeRoom(): void {
    const most = 2 * this.spec.count * this.stride;
    if (this.words.length < most) {
      const grown = new Uint32Array(Math.min(most, 2 * this.words.length));
      grown.set(this.words.subarray(0, this.numHeld * this.stride));
      this.words = grown;
      this.values = new Float32Array(grown.buffer);
      return;
    }
    this.cut();
  }

  /** Sorts the held records strongest first and keeps `count` of them. */
  private cut(): void {
    const { stride, words } = this;
    const order = new Uint32Array(this.numHeld);
    for (let r = 0; r < order.length; r++) order[r] = r;
    order.sort((a, b) => this.compare(words, a * stride, this.values[a * stride + this.numWay], b * stride));
    const numKept = Math.min(this.numHeld, this.spec.count);
    const kept = new Uint32Array(words.length);
    for (let r = 0; r < numKept; r++) kept.set(words.subarray(order[r] * stride, (order[r] + 1) * stride), r * stride);
    this.words = kept;
    this.values = new Float32Array(kept.buffer);
    this.numHeld = numKept;
    this.weakestAt = numKept === this.spec.count ? (numKept - 1) * stride : -1;
  }
}

/** Puts a record's `numWay` coordinates in ascending order (insertion sort of 2 to 4 words). */
function sortCoordinates(record: Uint32Array, numWay: number): void {
  for (let w = 1; w < numWay; w++) {
    const coord = record[w];
    let at = w;
    while (at > 0 && record[at - 1] > coord) {
      record[at] = record[at - 1];
      at--;
    }
    record[at] = coord;
  }
}

/**
 * The run's top records on rank 0 (collective over `comm`): every other rank sends its candidates (a count word, then
 * the records), rank 0 adds them to its own and returns the strongest `count`; the other ranks return null.
 */
export async function gatherTopRecords(comm: Communicator, top: TopRecords): Promise<TakenRecords | null> {
  const own = top.take();
  if (comm.rank !== 0) {
    const message = new Uint32Array(1 + own.words.length);
    message[0] = own.numRecords;
    message.set(own.words, 1);
    await comm.send(0, TAG_TOP_RECORDS, message);
    return null;
  }
  top.appendRecordWords(own.words, own.numRecords);
  for (let source = 1; source < comm.size; source++) {
    const message = await comm.recv(source, TAG_TOP_RECORDS, new Uint32Array(0));
    top.appendRecordWords(message.subarray(1), message[0]);
  }
  return top.take();
}

/** The one records file of a `--top` run: `<stub>_top.bin` (found by dump, top, merge, report through `<stub>.run.json`). */
export function topRecordsFilePath(stub: string): string {
  return `${stub}_top.bin`;
}
