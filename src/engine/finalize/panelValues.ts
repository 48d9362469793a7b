// A panel's values kept as they are finalized, for sinks that need every value rather than records (the dense matrix,
// matrixSink.ts): a ResultSink that passes everything to the run's sink (threshold, checksum, records) and also puts
// each pair's value at its place in the panel. Host finalize uses it on the main thread and in finalize workers alike;
// the panel's array lies in shared memory, and each worker's task writes only its own rows.
import type { ChecksumAccumulator } from '../../core/checksum.js';
import type { Threshold } from '../../core/thresholds.js';
import type { HistogramCounts } from '../../core/histogramLayout.js';
import { pairValueRowsOf, type PairCountRow, type PairValueRows, type PairValueSink, type ResultSink, type TupleRow } from '../../analyses/index.js';

/** Where a panel's values go: `values[(i − rowVector)·numCols + (j − colVector)]` is pair (i, j)'s (global indices). */
export interface PanelValueTarget {
  readonly values: Float64Array<ArrayBufferLike>;
  readonly rowVector: number;
  readonly colVector: number;
  readonly numCols: number;
}

/** The run's sink, plus every pair's value into a panel target (analyses with one value per pair). */
export class PanelValueCapture implements ResultSink, PairValueSink {
  constructor(private readonly inner: ResultSink, private readonly target: PanelValueTarget) {}

  get threshold(): Threshold {
    return this.inner.threshold;
  }

  get checksum(): ChecksumAccumulator {
    return this.inner.checksum;
  }

  get writesRecords(): boolean {
    return this.inner.writesRecords;
  }

  addPairEntryRow(i: number, a: number, jFirst: number, b: number, numCols: number, values: Float64Array): void {
    this.inner.addPairEntryRow(i, a, jFirst, b, numCols, values);
    const { target } = this;
    target.values.set(values.subarray(0, numCols), (i - target.rowVector) * target.numCols + (jFirst - target.colVector));
  }

  addPairRow(): void {
    throw new Error('a dense matrix holds one value per pair, and addPairRow gives four (the analysis declares no dense-matrix result)');
  }

  addTripleRow(): void {
    throw new Error('a dense matrix holds pairs, not triples');
  }

  addTupleValueRow(tuple: TupleRow, values: Float64Array): void {
    if (tuple.j !== null) throw new Error('a dense matrix holds pairs, not triples');
    this.inner.addTupleValueRow(tuple, values);
    const { target } = this;
    target.values.set(values.subarray(0, tuple.count), (tuple.i - target.rowVector) * target.numCols + (tuple.first - target.colVector));
  }

  get pairValueRows(): PairValueRows | null {
    const inner = pairValueRowsOf(this.inner);
    if (inner === null) return null;
    const { target } = this;
    return {
      numVector: inner.numVector,
      addRow: (i, jFirst, numCols, values) => {
        inner.addRow(i, jFirst, numCols, values);
        target.values.set(values.subarray(0, numCols), (i - target.rowVector) * target.numCols + (jFirst - target.colVector));
      },
    };
  }

  addPairCountRow(row: PairCountRow): void {
    this.inner.addPairCountRow(row);
    const { target } = this;
    target.values.set(row.values.subarray(0, row.numCols), (row.i - target.rowVector) * target.numCols + (row.jFirst - target.colVector));
  }

  addRecordWords(words: Uint32Array, numRecords: number): void {
    this.inner.addRecordWords(words, numRecords);
  }

  addHistogramCounts(counts: HistogramCounts): void {
    this.inner.addHistogramCounts(counts);
  }
}
