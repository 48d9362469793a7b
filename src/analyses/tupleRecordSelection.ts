// What a finalize that scores one-value pairs and selects their records itself (the analyses' native finalizers) needs of
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

/** What a caller of tupleRecordSelection does itself. */
export interface SelectionOptions {
  /** It keeps only the pairs of the sink's LD window (r²'s native window bands): the window does not refuse it. */
  readonly windowApplied?: boolean;
}

/** A sink that hands out its selection (the engine's EntrySink). */
export interface RecordSelectingSink extends ResultSink {
  /**
   * Hands the records buffered so far to the writer (its bar counts them) and says what a record must pass now; null
   * where the sink does more with each value (a histogram, an LD window the caller does not apply): such rows go
   * through the sink's row methods.
   */
  tupleRecordSelection(options?: SelectionOptions): TupleRecordSelection | null;
}

/** The sink's selection, or null for a sink that has none (then rows go through addTupleValueRow). */
export function tupleRecordSelectionOf(sink: ResultSink, options?: SelectionOptions): TupleRecordSelection | null {
  return 'tupleRecordSelection' in sink && typeof sink.tupleRecordSelection === 'function' ? (sink as RecordSelectingSink).tupleRecordSelection(options) : null;
}

/** Which values become records, as the analyses' native finalizers take it (src/analyses/native/recordFilter.h). */
export interface NativeRecordSelection {
  readonly writesRecords: boolean;
  /** float32(value) > threshold, or null: every value. */
  readonly threshold: number | null;
  /** The writer's bar (inclusive), its value a float32, or null. */
  readonly bar: { readonly atLeast: boolean; readonly value: number } | null;
  /** The writer keeps this many strongest records (0: every record), larger values first when `topLarger`. */
  readonly topCount: number;
  readonly topLarger: boolean;
}

const BAR_BITS = new Uint32Array(1);
const BAR_FLOAT = new Float32Array(BAR_BITS.buffer);

/** What a native finalizer applies of a sink's selection, or null for a threshold it does not take (CoMet's per-entry forms). */
export function nativeRecordSelectionOf(selection: TupleRecordSelection): NativeRecordSelection | null {
  const { threshold, bar, top } = selection;
  if (threshold.kind !== 'none' && threshold.kind !== 'single') return null;
  BAR_BITS[0] = bar?.valueBits ?? 0;
  return {
    writesRecords: selection.writesRecords,
    threshold: threshold.kind === 'single' ? threshold.value : null,
    bar: bar === null ? null : { atLeast: bar.keep === 'atLeast', value: BAR_FLOAT[0] },
    topCount: top?.count ?? 0,
    topLarger: top?.stronger !== 'smaller',
  };
}
