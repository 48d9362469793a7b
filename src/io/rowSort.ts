// Sorts rows of a few uint32 words by their leading key words, with bounded memory: rows are gathered in chunks, each
// chunk is radix-sorted in memory and, when more than one chunk is needed, written as a sorted run to a scratch file;
// the runs are then merged. Used by `dump` and the PLINK front end to sort millions of records by position or value.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { systemErrorText } from './systemErrorText.js';

/** Rows sorted in memory at once (and per scratch run): 2^21 rows of 6 words are 48 MiB, with the sort's index arrays ~64 MiB. */
export const DEFAULT_ROWS_PER_CHUNK = 1 << 21;

/** Rows read back per run while merging (each run's buffer). */
const MERGE_BUFFER_ROWS = 1 << 14;

/** The shape of the rows to sort. */
export interface RowSortOptions {
  /** Words per row. */
  readonly rowWords: number;
  /** The first `numKeyWords` words of a row are its key, most significant first, compared as unsigned integers. */
  readonly numKeyWords: number;
  /** Rows held in memory at once (default DEFAULT_ROWS_PER_CHUNK). */
  readonly rowsPerChunk?: number;
  /** Where scratch runs go (default: the OS's temporary directory). */
  readonly scratchParent?: string;
}

/**
 * Stable LSD radix sort of the rows of `rows` (numRows × rowWords) by their first `numKeyWords` words, 16 bits per
 * pass; passes whose digit is the same in every row are skipped. Returns the rows in sorted order (a new array).
 */
export function sortRowsInMemory(rows: Uint32Array, numRows: number, rowWords: number, numKeyWords: number): Uint32Array {
  let order = new Uint32Array(numRows);
  for (let r = 0; r < numRows; r++) order[r] = r;
  let scratch = new Uint32Array(numRows);
  const counts = new Uint32Array(1 << 16);
  for (let word = numKeyWords - 1; word >= 0; word--) {
    for (const shift of [0, 16]) {
      counts.fill(0);
      for (let r = 0; r < numRows; r++) counts[(rows[r * rowWords + word] >>> shift) & 0xffff]++;
      if (numRows === 0 || counts[(rows[word] >>> shift) & 0xffff] === numRows) continue;
      let total = 0;
      for (let d = 0; d < counts.length; d++) {
        const count = counts[d];
        counts[d] = total;
        total += count;
      }
      for (let k = 0; k < numRows; k++) {
        const r = order[k];
        scratch[counts[(rows[r * rowWords + word] >>> shift) & 0xffff]++] = r;
      }
      [order, scratch] = [scratch, order];
    }
  }
  const sorted = new Uint32Array(numRows * rowWords);
  for (let k = 0; k < numRows; k++) sorted.set(rows.subarray(order[k] * rowWords, (order[k] + 1) * rowWords), k * rowWords);
  return sorted;
}

/** Lexicographic comparison of the keys of row `a` of `x` and row `b` of `y`. */
function compareKeys(x: Uint32Array, a: number, y: Uint32Array, b: number, numKeyWords: number): number {
  for (let w = 0; w < numKeyWords; w++) {
    const difference = x[a + w] - y[b + w];
    if (difference !== 0) return difference;
  }
  return 0;
}

/** A sorted run in a scratch file, read back a buffer at a time. */
class RunReader {
  private readonly buffer: Uint32Array;
  private numRowsInBuffer = 0;
  private rowInBuffer = 0;
  private bytePosition = 0;

  constructor(private readonly fd: number, private readonly rowWords: number, private rowsLeft: number) {
    this.buffer = new Uint32Array(MERGE_BUFFER_ROWS * rowWords);
    this.fill();
  }

  /** Word offset of the current row in `rows`, or -1 when the run is exhausted. */
  get current(): number {
    return this.rowInBuffer < this.numRowsInBuffer ? this.rowInBuffer * this.rowWords : -1;
  }

  get rows(): Uint32Array {
    return this.buffer;
  }

  advance(): void {
    if (++this.rowInBuffer === this.numRowsInBuffer) this.fill();
  }

  private fill(): void {
    const numRows = Math.min(this.rowsLeft, MERGE_BUFFER_ROWS);
    const bytes = new Uint8Array(this.buffer.buffer, 0, numRows * this.rowWords * 4);
    let done = 0;
    while (done < bytes.length) {
      const got = readSync(this.fd, bytes, done, bytes.length - done, this.bytePosition + done);
      if (got === 0) throw new Error('sort scratch run ended early');
      done += got;
    }
    this.bytePosition += bytes.length;
    this.rowsLeft -= numRows;
    this.numRowsInBuffer = numRows;
    this.rowInBuffer = 0;
  }
}

/**
 * Collects rows (`add`), then yields them sorted (`sorted`), in batches. Memory: one chunk of rows, plus one merge
 * buffer per scratch run. Call `dispose` when done (it removes the scratch files, also after a failure).
 */
export class RowSorter {
  private readonly rowsPerChunk: number;
  private chunk: Uint32Array;
  private numRowsInChunk = 0;
  private readonly runs: Array<{ readonly path: string; readonly numRows: number }> = [];
  private scratchDirectory: string | null = null;

  constructor(private readonly options: RowSortOptions) {
    this.rowsPerChunk = options.rowsPerChunk ?? DEFAULT_ROWS_PER_CHUNK;
    this.chunk = new Uint32Array(Math.min(this.rowsPerChunk, 1024) * options.rowWords);
  }

  /** Rows added so far. */
  get numRows(): number {
    return this.runs.reduce((sum, run) => sum + run.numRows, 0) + this.numRowsInChunk;
  }

  /** The directory of scratch runs once one is written (to remove on an interrupt), else null. */
  get scratchPath(): string | null {
    return this.scratchDirectory;
  }

  /** Adds one row (`rowWords` words from `words` at `offset`). */
  add(words: ArrayLike<number>, offset = 0): void {
    const { rowWords } = this.options;
    if (this.numRowsInChunk * rowWords === this.chunk.length) this.grow();
    const at = this.numRowsInChunk * rowWords;
    for (let w = 0; w < rowWords; w++) this.chunk[at + w] = words[offset + w];
    this.numRowsInChunk++;
  }

  /** All rows in key order (ties in the order they were added), `batchRows` at a time (the batch array is reused). */
  *sorted(batchRows = 1 << 14): Generator<{ readonly rows: Uint32Array; readonly numRows: number }> {
    const { rowWords, numKeyWords } = this.options;
    const inMemory = sortRowsInMemory(this.chunk, this.numRowsInChunk, rowWords, numKeyWords);
    if (this.runs.length === 0) {
      for (let start = 0; start < this.numRowsInChunk; start += batchRows) {
        const end = Math.min(this.numRowsInChunk, start + batchRows);
        yield { rows: inMemory.subarray(start * rowWords, end * rowWords), numRows: end - start };
      }
      return;
    }
    if (this.numRowsInChunk > 0) this.writeRun(inMemory, this.numRowsInChunk);
    this.chunk = new Uint32Array(0);
    this.numRowsInChunk = 0;
    const fds = this.runs.map((run) => openSync(run.path, 'r'));
    try {
      const readers = this.runs.map((run, r) => new RunReader(fds[r], rowWords, run.numRows));
      // A binary heap of run indices, smallest current key on top; ties go to the earlier run (stable).
      const heap = readers.map((_, r) => r).filter((r) => readers[r].current >= 0);
      const less = (p: number, q: number): boolean => {
        const order = compareKeys(readers[p].rows, readers[p].current, readers[q].rows, readers[q].current, numKeyWords);
        return order < 0 || (order === 0 && p < q);
      };
      const siftDown = (start: number): void => {
        for (let i = start; ;) {
          const [left, right] = [2 * i + 1, 2 * i + 2];
          let smallest = i;
          if (left < heap.length && less(heap[left], heap[smallest])) smallest = left;
          if (right < heap.length && less(heap[right], heap[smallest])) smallest = right;
          if (smallest === i) return;
          [heap[i], heap[smallest]] = [heap[smallest], heap[i]];
          i = smallest;
        }
      };
      for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
      const batch = new Uint32Array(batchRows * rowWords);
      let numInBatch = 0;
      while (heap.length > 0) {
        const reader = readers[heap[0]];
        batch.set(reader.rows.subarray(reader.current, reader.current + rowWords), numInBatch * rowWords);
        if (++numInBatch === batchRows) {
          yield { rows: batch, numRows: numInBatch };
          numInBatch = 0;
        }
        reader.advance();
        if (reader.current < 0) {
          const last = heap.pop() as number;
          if (heap.length > 0) heap[0] = last;
        }
        if (heap.length > 0) siftDown(0);
      }
      if (numInBatch > 0) yield { rows: batch, numRows: numInBatch };
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  }

  /** Removes the scratch runs. */
  dispose(): void {
    if (this.scratchDirectory !== null) rmSync(this.scratchDirectory, { recursive: true, force: true });
    this.scratchDirectory = null;
  }

  private grow(): void {
    const { rowWords, numKeyWords } = this.options;
    if (this.numRowsInChunk < this.rowsPerChunk) {
      const larger = new Uint32Array(Math.min(this.rowsPerChunk, this.numRowsInChunk * 2) * rowWords);
      larger.set(this.chunk);
      this.chunk = larger;
      return;
    }
    this.writeRun(sortRowsInMemory(this.chunk, this.numRowsInChunk, rowWords, numKeyWords), this.numRowsInChunk);
    this.numRowsInChunk = 0;
  }

  private writeRun(sortedRows: Uint32Array, numRows: number): void {
    this.scratchDirectory ??= mkdtempSync(join(this.options.scratchParent ?? tmpdir(), 'snptally-sort-'));
    const path = join(this.scratchDirectory, `run${this.runs.length}.u32`);
    const bytes = new Uint8Array(sortedRows.buffer, sortedRows.byteOffset, numRows * this.options.rowWords * 4);
    let fd: number | null = null;
    try {
      fd = openSync(path, 'wx');
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      throw new UserError(`cannot write the sort's scratch file ${path}: ${systemErrorText(error)} (set TMPDIR to a roomier place)`);
    } finally {
      if (fd !== null) closeSync(fd);
    }
    this.runs.push({ path, numRows });
  }
}
