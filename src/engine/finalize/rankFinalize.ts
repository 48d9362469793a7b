// What a rank finalizes with: its analysis bound to the run, where values go (sink, verifier), and when the device
// may finalize instead of the host.
import type {
  AnalysisRun, DeviceFinalizeOptions, DevicePairFinalizer, DeviceQuadFinalizer, DeviceTripleFinalizer, FinalizeContext, RecordBarSource, ValueVerifier,
} from '../../analyses/index.js';
import type { PopcountGemm } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import type { FinalizePlacement } from '../run/jobSpec.js';
import type { EntrySink } from './entrySink.js';
import type { MatrixSink } from './matrixSink.js';
import type { TopRecords, TopRecordsSpec } from './topRecordsSink.js';

export interface RankFinalize extends FinalizeContext {
  readonly analysis: AnalysisRun;
  readonly sink: EntrySink;
  readonly verifier: ValueVerifier | null;
  readonly numVector: number;
  readonly numField: number;
  /** A dense-matrix run's sink on this rank (every pair's value; null where records are written, or none). */
  readonly matrix?: MatrixSink | null;
  /** A top-N run's sink spec: finalize workers keep their own strongest records (null or absent: every record). */
  readonly top?: TopRecordsSpec | null;
  /** A top-N run's sink on a finalizing rank: its strongest records so far bar the device's records (absent or null: none). */
  readonly topRecords?: TopRecords | null;
}

/** What decides device finalize besides the analysis: the placement asked for, and the field communicator. */
export interface DeviceFinalizeSetting {
  readonly placement: FinalizePlacement;
  readonly fieldComm: Communicator;
}

/**
 * Whether the engine lets the device finalize at all: not with `host` placement, not with field slabs (tallies are
 * summed across ranks first), not with --verify (it needs every value on the host). The analysis may still decline
 * (its deviceFinalizer returns null).
 */
export function deviceMayFinalize(rank: RankFinalize, setting: DeviceFinalizeSetting): boolean {
  return setting.placement !== 'host' && setting.fieldComm.size === 1 && rank.verifier === null;
}

/** The 2-way device finalizer of a run, or null when the host finalizes (the engine's reasons or the analysis's). */
export function devicePairFinalizer(rank: RankFinalize, gemm: PopcountGemm, setting: DeviceFinalizeSetting): DevicePairFinalizer | null {
  if (!deviceMayFinalize(rank, setting)) return null;
  return rank.analysis.pairs?.deviceFinalizer?.(gemm, rank.sink.threshold, deviceOptions(rank)) ?? null;
}

/** The 3-way device finalizer of a run, or null when the host finalizes. */
export function deviceTripleFinalizer(rank: RankFinalize, gemm: PopcountGemm, setting: DeviceFinalizeSetting): DeviceTripleFinalizer | null {
  if (!deviceMayFinalize(rank, setting)) return null;
  return rank.analysis.triples?.deviceFinalizer?.(gemm, rank.sink.threshold, deviceOptions(rank)) ?? null;
}

/** The 4-way device finalizer of a run, or null when the host finalizes. */
export function deviceQuadFinalizer(rank: RankFinalize, gemm: PopcountGemm, setting: DeviceFinalizeSetting): DeviceQuadFinalizer | null {
  if (!deviceMayFinalize(rank, setting)) return null;
  return rank.analysis.quads?.deviceFinalizer?.(gemm, rank.sink.threshold, deviceOptions(rank)) ?? null;
}

/** What the device finalize of a rank returns besides the checksum: records, histogram counts. */
function deviceOptions(rank: RankFinalize): DeviceFinalizeOptions {
  return {
    writesRecords: rank.sink.writesRecords, histogram: rank.sink.histogramLayout, denseValues: rank.matrix?.deviceValueKind ?? null,
    window: rank.sink.window,
    recordBar: recordBarOf(rank.topRecords ?? null),
  };
}

/** The device's records-only bar of a top-N run: the rank's current N-th strongest record (records go nowhere else). */
function recordBarOf(top: TopRecords | null): RecordBarSource | null {
  return top === null ? null : () => top.recordBar();
}
