// Where computed table entries go: threshold, exact checksum, per-rank output records.
import { ChecksumAccumulator, entryUid2, entryUid3 } from '../core/checksum.js';

/** Receives output records (SPEC §7): `numWay` coordinates `2·G + E` then a float32 value per record. */
export interface RecordWriter {
  append(coords: Uint32Array, values: Float32Array, numRecords: number): void;
}

const RECORDS_PER_FLUSH = 1 << 16;

/** Thresholds entries, adds them to the checksum and buffers their output records. */
export class EntrySink {
  readonly checksum = new ChecksumAccumulator();
  private readonly coords: Uint32Array;
  private readonly values = new Float32Array(RECORDS_PER_FLUSH);
  private numBuffered = 0;

  constructor(
    private readonly numVector: number,
    private readonly numWay: 2 | 3,
    /** Keep entries with float32(value) > threshold; null keeps all. */
    private readonly threshold: number | null,
    private readonly writer: RecordWriter | null,
  ) {
    this.coords = new Uint32Array(RECORDS_PER_FLUSH * numWay);
  }

  /** One 2-way entry: global vectors i, j with entry bits a, b. */
  add2(i: number, a: number, j: number, b: number, value: number): void {
    if (this.threshold !== null && !(Math.fround(value) > this.threshold)) return;
    this.checksum.add(entryUid2(this.numVector, i, a, j, b), value);
    if (this.writer === null) return;
    const n = this.numBuffered;
    this.coords[2 * n] = 2 * i + a;
    this.coords[2 * n + 1] = 2 * j + b;
    this.push(value);
  }

  /** One 3-way entry. */
  add3(i: number, a: number, j: number, b: number, k: number, c: number, value: number): void {
    if (this.threshold !== null && !(Math.fround(value) > this.threshold)) return;
    this.checksum.add(entryUid3(this.numVector, i, a, j, b, k, c), value);
    if (this.writer === null) return;
    const n = this.numBuffered;
    this.coords[3 * n] = 2 * i + a;
    this.coords[3 * n + 1] = 2 * j + b;
    this.coords[3 * n + 2] = 2 * k + c;
    this.push(value);
  }

  private push(value: number): void {
    this.values[this.numBuffered++] = value;
    if (this.numBuffered === RECORDS_PER_FLUSH) this.flush();
  }

  /** Hands buffered records to the writer. */
  flush(): void {
    if (this.writer !== null && this.numBuffered > 0) this.writer.append(this.coords, this.values, this.numBuffered);
    this.numBuffered = 0;
  }
}
