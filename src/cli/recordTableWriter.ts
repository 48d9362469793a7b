// Writes every record of a run's metrics files as one table (dump): in file order as they stream, or sorted by
// position or value through the bounded-memory row sorter (io/rowSort.ts), so millions of records need no more memory
// than one sort chunk.
import type { NumWay } from '../core/types.js';
import { readMetricsFileChunks, RowSorter, type TextOutput } from '../io/index.js';
import { positionRanks, TableLayout, type TableContext, type TableOrder } from './recordTable.js';
import { NO_ENTRY, type NamedRecord, type SnpNaming } from './snpNaming.js';

/** How a table is written. */
export interface TableWriteOptions {
  readonly order: TableOrder;
  readonly header: boolean;
  /** Rows sorted in memory at once (tests make it small to exercise the scratch runs). */
  readonly rowsPerChunk?: number;
  /** Where the sort's scratch runs go (default: the OS's temporary directory). */
  readonly scratchParent?: string;
}

/** Lines joined per write: a sort batch (2^21 rows) as one string would be a few hundred MB of short-lived text. */
const LINES_PER_WRITE = 1 << 13;

/** Lines gathered and written LINES_PER_WRITE at a time; `numWritten` counts them. */
export class LineBatch {
  private readonly lines: string[] = [];
  numWritten = 0;

  constructor(private readonly output: TextOutput) {}

  /** Adds a line; true when the batch is full and should be flushed. */
  add(line: string): boolean {
    return this.lines.push(line) === LINES_PER_WRITE;
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    this.numWritten += this.lines.length;
    await this.output.write(this.lines.join(''));
    this.lines.length = 0;
  }
}

/** A float32's bits as a key that sorts the strongest first (the largest, or the smallest), NaN last. */
function strongestFirstKey(bits: number, stronger: 'larger' | 'smaller'): number {
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0) return 0xffffffff;
  const ascending = (bits & 0x80000000) !== 0 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
  // Keys of non-NaN values are below 0xff800001 in either direction: NaN (0xffffffff) sorts last.
  return stronger === 'smaller' ? ascending : ~ascending >>> 0;
}

/** Entry bits (first coordinate most significant) as text, e.g. 0b011 → `011`. */
function entryText(entryBits: number, numWay: NumWay, naming: SnpNaming): string {
  return naming.coordinates === 'vector' ? NO_ENTRY : entryBits.toString(2).padStart(numWay, '0');
}

/** Writes the table of `files` to `output` (not committed: the caller commits). Returns the number of records. */
export async function writeRecordTable(
  files: readonly string[], context: TableContext, output: TextOutput, options: TableWriteOptions,
): Promise<number> {
  const layout = TableLayout.of(context);
  const { numWay, naming } = context;
  if (options.header) await output.write(layout.header());
  if (options.order === 'file') {
    let numRecords = 0;
    for (const file of files) {
      for (const chunk of readMetricsFileChunks(file, numWay)) {
        const lines = new LineBatch(output);
        for (let r = 0; r < chunk.numRecords; r++) {
          if (lines.add(layout.line(naming.namedRecord(chunk.coords, r, numWay, chunk.values[r])))) await lines.flush();
        }
        await lines.flush();
        numRecords += chunk.numRecords;
      }
    }
    return numRecords;
  }
  const sidecar = naming.preparedSidecar;
  const ranks = sidecar === null ? null : positionRanks(sidecar, sidecar.numVector);
  const byValue = options.order === 'value';
  // Rows: [value key,] the SNPs (ranks by position, indices by value) ascending, entry bits; then the value's bits.
  const numKeyWords = numWay + (byValue ? 2 : 1);
  const sorter = new RowSorter({ rowWords: numKeyWords + 1, numKeyWords, rowsPerChunk: options.rowsPerChunk, scratchParent: options.scratchParent });
  try {
    const row = new Uint32Array(numKeyWords + 1);
    const snpKeys = [0, 0, 0];
    const bits = [0, 0, 0];
    const first = byValue ? 1 : 0;
    for (const file of files) {
      for (const chunk of readMetricsFileChunks(file, numWay)) {
        const valueBits = new Uint32Array(chunk.values.buffer, chunk.values.byteOffset, chunk.numRecords);
        for (let r = 0; r < chunk.numRecords; r++) {
          for (let w = 0; w < numWay; w++) {
            const coord = chunk.coords[r * numWay + w];
            const snpIdx = naming.snpIndexOf(naming.vectorOfCoord(coord));
            let at = w;
            const key = ranks === null || byValue ? snpIdx : ranks.rankOfSnp[snpIdx];
            // Insertion into the coordinates so far keeps them ascending (2 or 3 of them).
            while (at > 0 && snpKeys[at - 1] > key) {
              snpKeys[at] = snpKeys[at - 1];
              bits[at] = bits[at - 1];
              at--;
            }
            snpKeys[at] = key;
            bits[at] = naming.entryBitOfCoord(coord);
          }
          let entryBits = 0;
          for (let w = 0; w < numWay; w++) {
            row[first + w] = snpKeys[w];
            entryBits = (entryBits << 1) | bits[w];
          }
          if (byValue) row[0] = strongestFirstKey(valueBits[r], context.strongerValues);
          row[first + numWay] = entryBits;
          row[numKeyWords] = valueBits[r];
          sorter.add(row);
        }
      }
    }
    const value = new Float32Array(1);
    const valueWord = new Uint32Array(value.buffer);
    for (const batch of sorter.sorted()) {
      const lines = new LineBatch(output);
      for (let r = 0; r < batch.numRows; r++) {
        const at = r * (numKeyWords + 1);
        const snpIndices: number[] = [];
        for (let w = 0; w < numWay; w++) {
          const key = batch.rows[at + first + w];
          snpIndices.push(ranks === null || byValue ? key : ranks.snpOfRank[key]);
        }
        valueWord[0] = batch.rows[at + numKeyWords];
        const record: NamedRecord = { snpIndices, entry: entryText(batch.rows[at + first + numWay], numWay, naming), value: value[0] };
        if (lines.add(layout.line(record))) await lines.flush();
      }
      await lines.flush();
    }
    return sorter.numRows;
  } finally {
    sorter.dispose();
  }
}
