// What a finalize that scores one-value pairs and selects their records itself (epistasis's native scorer) needs of
// the run's sink: the threshold and top-N bar that addTupleValueRow would apply now. The finalize then adds its exact
// checksum part to `sink.checksum` and its records through `addRecordWords`, in row order.
import type { Threshold } from '../core/thresholds.js';
import type { RecordBar } from '../mgemm/index.js';
import type { ResultSink, StrongerValues } from './analysis.js';

/** What a pair's value must pass to become a record, as ResultSink.addTupleValueRow tests it. */
export interface TupleRecordSelection {
  /** The run's vector count, which names a pair in the checksum (uid max·nv + min, SPEC §8). */
  readonly numVector: number;
  readonly threshold: Threshold;
  readonly writesRecords: boolean;
  /** A top-N writer's bar now (inclusive), or null. */
  readonly bar: RecordBar | null;
  /** A top-N writer's count and which values are stronger (a finalize may tighten the bar by its own records), or null. */
  readonly top: { readonly count: number; readonly stronger: StrongerValues } | null;
}

/** A sink that hands out its selection (the engine's EntrySink). */
export interface RecordSelectingSink extends ResultSink {
  /**
   * Hands the records buffered so far to the writer (its bar counts them) and says what a record must pass now; null
   * where the sink does more with each value (a histogram, an LD window): such rows go through addTupleValueRow.
   */
  tupleRecordSelection(): TupleRecordSelection | null;
}

/** The sink's selection, or null for a sink that has none (then rows go through addTupleValueRow). */
export function tupleRecordSelectionOf(sink: ResultSink): TupleRecordSelection | null {
  return 'tupleRecordSelection' in sink && typeof sink.tupleRecordSelection === 'function' ? (sink as RecordSelectingSink).tupleRecordSelection() : null;
}
