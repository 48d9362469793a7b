// What one run computes (JobSpec) and what it reports (RunResult): the boundary between the CLI and the engine.
import type { Threshold } from '../../core/thresholds.js';
import type { MetricSpec } from '../../core/types.js';
import type { AnalysisRef } from '../../analyses/index.js';
import type { HalfDiagonalPlan } from '../../parallel/index.js';
import type { BedRecords, MatrixFormat, MatrixShape } from '../../io/index.js';
import type { HistogramLayout } from '../../core/histogramLayout.js';
import type { PairWindowLimits } from '../../core/pairWindow.js';

/**
 * Where the vectors come from (SPEC §4 synthetic problems, CoMet's packed binary file, or packed vectors in memory: a
 * fileset transposed for `run --individuals`, io/sampleRowsInMemory.ts, or a fileset's SNPs, io/preparedInMemory.ts).
 */
export type ProblemSource =
  | { readonly kind: 'random' }
  | { readonly kind: 'analytic' }
  | { readonly kind: 'file'; readonly path: string }
  | {
    readonly kind: 'memory';
    /** numVector vectors of ceil(numField / 4) bytes (SPEC §1, pad fields zero) over a SharedArrayBuffer. */
    readonly packed: Uint8Array;
    /**
     * One Int32 over a SharedArrayBuffer: 0 while `packed` is still written (the run starts meanwhile; blocks are built
     * once it is 1), 1 once final, 2 when it never will be (io's SAMPLE_ROWS_* states; Atomics.notify on each change).
     */
    readonly state: Int32Array;
    /**
     * The .bed records the vectors are transposed from, when they are whole records (every sample, in order): a GPU
     * kernel set may read them itself (engine/blocks/codeRowPlanes.ts) rather than wait for the transposition. Absent
     * or null: only `packed`.
     */
    readonly bedRecords?: BedRecords | null;
  };

/** The process grid of SPEC §6, the slice of phases/stages to compute, and the 2-way half-diagonal plan. */
export interface DecompositionSpec {
  readonly numProcVector: number;
  readonly numProcField: number;
  readonly numProcRepl: number;
  readonly numPhase: number;
  readonly phaseMin: number;
  /** Inclusive. */
  readonly phaseMax: number;
  readonly numStage: number;
  readonly stageMin: number;
  /** Inclusive. */
  readonly stageMax: number;
  /**
   * 2-way: who computes the d = npv/2 block diagonal of an even npv. `lower-rows` is SPEC §6's plan; `split`
   * shares each of its blocks between its two rows (balanced work, same pairs and checksum, other records
   * per rank). Must be `lower-rows` for 3-way.
   */
  readonly halfDiagonal: HalfDiagonalPlan;
}

/** Where a run finalizes: `auto` on the device when the kernel set and the run allow it, `host` always on the CPU. */
export type FinalizePlacement = 'auto' | 'host';

/** Memory a run may use (checkJob refuses a job whose estimated peak exceeds it). */
export interface MemoryLimits {
  /** Host bytes of the job's processes on one host; null: the memory available when the job is checked. */
  readonly hostBytes: number | null;
  /** Bytes of one GPU rank's device memory; null: what the adapter reports (Dawn reports nothing: no check). */
  readonly deviceBytes: number | null;
}

/** A job's estimated peak memory and the limits it was checked against (memoryEstimate.ts, memoryCheck.ts). */
export interface MemoryReport {
  /** Peak resident bytes of one process (all its in-process ranks; one rank under MPI). */
  readonly estimatedHostBytes: number;
  /** The host limit the job was checked against; null when none was known. */
  readonly hostMemoryLimitBytes: number | null;
  /** Peak bytes on one GPU rank's device; null for CPU kernel sets. */
  readonly estimatedDeviceBytes: number | null;
  /** The device limit checked against; null: no check. */
  readonly deviceMemoryLimitBytes: number | null;
}

/**
 * A dense matrix of every pair's value instead of per-rank records, in PLINK's layout: `<stub>.<extension>` (text) or
 * `<stub>.<extension>.bin` (bin: float64, bin4: float32), the extension from the analysis (finalize/matrixSink.ts).
 */
export interface MatrixOutputSpec {
  readonly shape: MatrixShape;
  readonly format: MatrixFormat;
}

/**
 * An LD window of a 2-way run (PLINK 1.9's --ld-window, --ld-window-kb, inter-chr; core/pairWindow.ts): only pairs in
 * it are computed and reach thresholds, checksum, records, histograms and top-N.
 */
export interface LdWindowJob {
  /** `--ld-window N` as given (pairs i < j with j − i < N), or null. */
  readonly ldWindow: number | null;
  /** `--ld-window-kb KB` as given (bp distance ≤ KB·1000), or null. */
  readonly ldWindowKb: number | null;
  /** `--inter-chr`: pairs on two chromosomes are in the window too. */
  readonly interChr: boolean;
  /** The window over the run's vectors (from their chromosomes and positions). */
  readonly limits: PairWindowLimits;
}

/** Threshold of SPEC §7: none, one value for every entry, or CoMet's per-entry forms (core/thresholds). */
export type ThresholdSpec = Threshold;

export interface JobSpec {
  /** The analysis's settings; `metric` names it (a built-in analysis, or the one `analysisModule` exports). */
  readonly metricSpec: MetricSpec;
  /** URL of a module exporting the analysis `metric` names, when it is not built in (src/analyses/registry.ts). */
  readonly analysisModule?: string;
  readonly numVector: number;
  readonly numField: number;
  readonly source: ProblemSource;
  readonly decomposition: DecompositionSpec;
  readonly threshold: ThresholdSpec;
  /** Write per-rank binary files `<stub>_<rank>.bin` (SPEC §7); null: no output. */
  readonly outputStub: string | null;
  /**
   * Keep only the records of the run's `top` strongest entries (after the threshold), in one file `<stub>_top.bin`
   * instead of per-rank files (finalize/topRecordsSink.ts); absent or null: every record that passes the threshold.
   */
  readonly top?: number | null;
  /** Write SPEC §9's histograms of all values to this file (rank 0, once for the run); absent or null: none. */
  readonly histogramPath?: string | null;
  /** Overwrite existing output files. */
  readonly force: boolean;
  /** Output values as float32 (the checksum always uses doubles). */
  readonly singlePrecisionOutput: boolean;
  /** Kernel set; `auto` is webgpu when an adapter exists, else cpu (runJob resolves it before ranks start). */
  readonly backend: 'ref' | 'cpu' | 'webgpu' | 'auto';
  /**
   * Where values, thresholds and the checksum are computed: `auto` on the GPU when the kernel set offers it and the
   * analysis and the run allow it (see finalize/rankFinalize.ts), `host` always on the CPU.
   */
  readonly finalize: FinalizePlacement;
  /** Kernel threads for the whole process (split among in-process ranks). */
  readonly numThreads: number;
  /** Check every value of an analytic problem against its independently computed expectation. */
  readonly verify: boolean;
  /** Write a dense matrix (an analysis with a 'dense-matrix' result, outputStub set) instead of records; absent or null: records. */
  readonly matrix?: MatrixOutputSpec | null;
  /** Limits of the estimated peak memory (default: both null, see MemoryLimits). */
  readonly memoryLimits?: MemoryLimits;
  /** An LD window (2-way); absent or null: every pair. */
  readonly window?: LdWindowJob | null;
}

/** Where one rank's kernels ran: the CPU, or a GPU and its place among its host's GPUs. */
export interface RankDevice {
  readonly rank: number;
  readonly description: string;
  /** Index among the host's GPUs and their number; null on the CPU or when unknown. */
  readonly gpuIndex: number | null;
  readonly gpuCount: number | null;
  /** The kernel set that computed its tallies, e.g. `avx512-vpopcntq_4x4`, `wasm-i64_4x4`, `ref`, `webgpu-bitwise`. */
  readonly kernelSet: string;
}

/** A run's histograms of all values (SPEC §9): exact counts, column c's bucket b at `counts[c · numBuckets + b]`. */
export interface RunHistogram {
  /** The file they were written to. */
  readonly path: string;
  readonly layout: HistogramLayout;
  readonly counts: readonly bigint[];
  /** Undefined values (NaN, r²'s), counted in no bucket. */
  readonly numUndefined: bigint;
}

export interface RunResult extends MemoryReport {
  /** CoMet format `hi-mid-lo` (SPEC §5). */
  readonly checksum: string;
  /** Table entries that passed the threshold (all entries without one). */
  readonly entries: number;
  /** Of those, the ones whose value is 0. */
  readonly zeros: number;
  /** Unique pairs/triples × fields (CoMet's comparisons); with an LD window, the pairs of the tiles computed × fields. */
  readonly comparisons: number;
  /** With an LD window: the pairs in it among those computed (what checksum, entries and histograms cover); else null. */
  readonly windowPairs: number | null;
  /** Wall-clock seconds of the whole run (ranks started, input loaded or generated, computed, written). */
  readonly seconds: number;
  readonly comparisonsPerSecond: number;
  /**
   * Seconds of the slowest rank to load or generate its input, and to compute from loaded input to reduced
   * results (uploads, exchanges, GEMMs, finalize, threshold, checksum, output); `computeComparisonsPerSecond`
   * divides by the latter: the rate a benchmark of the engine itself compares.
   */
  readonly inputSeconds: number;
  readonly computeSeconds: number;
  readonly computeComparisonsPerSecond: number;
  /**
   * CPU seconds (user + system, all threads) of rank 0's process during rank 0's compute phase: with one rank, what
   * its threads spent; against computeSeconds × threads it shows how busy they were.
   */
  readonly computeCpuSeconds: number;
  /** The kernel set that ran (`auto` resolved). */
  readonly backend: string;
  /** Why `--backend auto` chose its kernel set (null for any other backend). */
  readonly backendNote: string | null;
  readonly numRanks: number;
  /** Number of values checked by `--verify` (0 when not asked). */
  readonly verifiedValues: number;
  /** Pairs finalized on the GPU (`finalize` auto with webgpu, 2-way ccc/duo); 0 when finalized on the host. */
  readonly deviceFinalizedPairs: number;
  /** Triples finalized on the GPU (`finalize` auto with webgpu, 3-way ccc/duo); 0 when finalized on the host. */
  readonly deviceFinalizedTriples: number;
  /** Quadruples scored on the GPU (`finalize` auto with webgpu, 4-way epistasis); 0 when finalized on the host. */
  readonly deviceFinalizedQuads: number;
  /**
   * Records that device finalize read back, all ranks: the entries passing the threshold, or in a `--top N` run those
   * that also reached the rank's N-th strongest so far (the records-only bar); 0 when finalized on the host.
   */
  readonly deviceRecordsReadBack: number;
  readonly outputFiles: readonly string[];
  /** The histograms of `--histograms` (JobSpec.histogramPath), or null. */
  readonly histogram: RunHistogram | null;
  /** One entry per rank, in rank order. */
  readonly rankDevices: readonly RankDevice[];
}

/** The analysis a job runs, as every thread and process of the job finds it. */
export function analysisRef(job: JobSpec): AnalysisRef {
  return { name: job.metricSpec.metric, moduleUrl: job.analysisModule ?? null };
}
