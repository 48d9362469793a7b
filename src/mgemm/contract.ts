// THE contract of the modified GEMM: bit-plane operands, tally terms, and the popcount-GEMM that
// every kernel set (ref, wasm, webgpu) implements, in its 2-way (`run`) and 3-way (`run3`) forms.
// Read this file first.
//
// Why bit planes: every tally of SPEC §2 is a sum over fields of products of per-field counts
// (c1 ∈ {0,1,2} for CCC, {0,1} for DUO, and the presence mask m in sparse mode). Writing each count
// as a sum of 0/1 planes (CCC: c1 = H + L; DUO: c1 = D) turns every tally into a sum of
// popcount(planeA AND planeB) over packed words — one binary GEMM whose multiply-add is
// AND + popcount. The metric-specific part is only which plane pairs ("terms") are summed.

import type { PairFinalizeRequest, PairFinalizeResult, PairValueProgram } from './pairFinalize.js';
import type { TripleFinalizeRequest, TripleFinalizeResult, TripleFinalizeValues } from './tripleFinalize.js';
import type { HistogramLayout } from '../core/histogramLayout.js';
import type { RealOperands } from './minPlusContract.js';
import type { ThreadGemmKernel } from './kernels/wasm/threadGemm.js';
import type { GuestTaskRunner, WorkerGuestPreload, WorkerGuestSpec } from '../core/taskWorkerPool.js';

/**
 * Bit planes of a set of vectors. Layout: `words[(vector * numPlanes + plane) * wordsPerPlane + w]`.
 * Bit b of word w of a plane is field `32 w + b` (fields local to this field slab).
 * Bits past the last field are zero, so they add nothing to any popcount.
 * `wordsPerPlane` is a multiple of WORDS_PER_PLANE_ALIGN so kernels can read whole 128-bit lanes.
 * `words` may live in a SharedArrayBuffer so that kernel worker threads read it without copies.
 * A matrix is not changed after it is first passed to a kernel set (GPU kernel sets keep copies).
 */
export interface PlaneMatrix {
  readonly numVectors: number;
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  readonly words: Uint32Array;
  /**
   * Per plane, the words [first, end) outside which that plane is zero in every row (epistasis's class planes, cleared
   * outside their class's fields), or null for a plane with bits anywhere; absent or null: every plane anywhere. A GPU
   * kernel set may move only those words to the device. Unlike a request's planeWordRanges this describes the data:
   * it must hold, or the words outside are lost.
   */
  readonly planeWordRanges?: readonly (PlaneWordRange | null)[] | null;
  /**
   * Present when the host holds the planes only as 2-bit code rows: `words` is then empty and only a kernel set with
   * `planesFromCodeRows` takes the matrix (it builds the planes where it keeps them: half the bytes of four planes to
   * move, no packing on the host). Absent or null: the planes are `words`.
   */
  readonly codeRows?: PlaneCodeRows | null;
  /** Present when the host holds the planes only as code records, one per field (the same rules as `codeRows`). */
  readonly codeRecords?: PlaneCodeRecords | null;
}

/**
 * Planes as SPEC §1's 2-bit code rows: field f of row r is code `(bytes[r · bytesPerRow + ⌊f/4⌋] >> 2(f mod 4)) & 3`,
 * and bit p of `bitsOfCode[code]` is its bit in plane p. Rows from `numRowsReal` on, and fields from `numField` on,
 * are zero in every plane whatever their bytes hold.
 */
export interface PlaneCodeRows {
  readonly bytes: Uint8Array;
  readonly bytesPerRow: number;
  readonly numRowsReal: number;
  readonly numField: number;
  /** Four entries, one per code. */
  readonly bitsOfCode: readonly number[];
}

/**
 * Planes as 2-bit code records, one per field (a PLINK .bed's SNP-major records): vector v's code in field f's record is
 * `(record[⌊(vectorFirst + v)/4⌋] >> 2((vectorFirst + v) mod 4)) & 3`, and bit p of `bitsOfCode[code]` its bit in plane
 * p. Vectors from `numRowsReal` on are zero in every plane.
 */
export interface PlaneCodeRecords {
  readonly numField: number;
  readonly bytesPerRecord: number;
  /** Where the matrix's vector 0 is in a record. */
  readonly vectorFirst: number;
  readonly numRowsReal: number;
  /** Four entries, one per code of a record. */
  readonly bitsOfCode: readonly number[];
  /**
   * Writes records `[first, first + count)` into `into`, record k at byte `4k · ⌈bytesPerRecord / 4⌉` (whole words each).
   * @throws Error (a UserError naming the file) when they cannot be read.
   */
  readRecords(into: Uint8Array, first: number, count: number): void;
}

/** Plane lengths are padded to a multiple of this many 32-bit words (128 bits). */
export const WORDS_PER_PLANE_ALIGN = 4;

/** One term of a 2-way tally: popcount(a-row plane `aPlane` AND b-row plane `bPlane`). */
export type TallyTerm = readonly [aPlane: number, bPlane: number];

/** A tally is the sum of its terms over all words: out[r][c] = Σ_terms Σ_w popc(A[r][pa][w] & B[c][pb][w]). */
export type TermGroup = readonly TallyTerm[];

/** One popcount-GEMM call: rows [aFirst, aFirst + aCount) of `a` against rows [bFirst, bFirst + bCount) of `b`. */
export interface PopcountGemmRequest {
  readonly a: PlaneMatrix;
  readonly aFirst: number;
  readonly aCount: number;
  readonly b: PlaneMatrix;
  readonly bFirst: number;
  readonly bCount: number;
  /** One output matrix per group; a kernel may fuse groups that share operands. */
  readonly termGroups: readonly TermGroup[];
  /**
   * Only entries with r < c are needed (a diagonal block of a symmetric product, `a === b`,
   * `aFirst === bFirst`). Kernels may skip work below the diagonal; those entries are then unspecified.
   */
  readonly strictUpper: boolean;
  /**
   * Per plane, the words [first, end) outside which that plane is zero in both operands (PlaneLayout.planeFieldRanges:
   * epistasis's class planes), or null for a plane with bits anywhere; absent or null: every plane anywhere. A
   * term counts only the words where both its planes' ranges meet — the same tallies, as the words skipped are zero:
   * kernels may honour it (ref, wasm, native) or not (webgpu), and callers must not pass a range that cuts bits.
   */
  readonly planeWordRanges?: readonly (PlaneWordRange | null)[] | null;
}

/** Words [first, end) of a plane. */
export type PlaneWordRange = readonly [first: number, end: number];

/** The words of term (aPlane, bPlane) of `request` that a kernel must sweep: [first, end) within [0, wordsPerPlane). */
export function termWordRange(request: PopcountGemmRequest, aPlane: number, bPlane: number): PlaneWordRange {
  const wordsPerPlane = request.a.wordsPerPlane;
  const ranges = request.planeWordRanges ?? null;
  const aRange = ranges?.[aPlane] ?? null;
  const bRange = ranges?.[bPlane] ?? null;
  const first = Math.max(0, aRange?.[0] ?? 0, bRange?.[0] ?? 0);
  const end = Math.min(wordsPerPlane, aRange?.[1] ?? wordsPerPlane, bRange?.[1] ?? wordsPerPlane);
  return [first, Math.max(first, end)];
}

/**
 * Outputs of a request: one Uint32Array of aCount × bCount per term group, row-major
 * (`out[g][r * bCount + c]`). Counts are exact; callers guarantee they fit in 32 bits (core/limits).
 */
export type PopcountGemmResult = Uint32Array[];

/** A plane of x paired with a plane of y: the factor `x_i[xPlane] AND y_j[yPlane]` of a 3-way term. */
export type PlanePair = readonly [xPlane: number, yPlane: number];

/** One j of a 3-way request: row `yRow` of y, against x rows [xFirst, +xCount) and z rows [zFirst, +zCount). */
export interface Tally3Slice {
  readonly yRow: number;
  readonly xFirst: number;
  readonly xCount: number;
  readonly zFirst: number;
  readonly zCount: number;
}

/**
 * One mGEMM3 call: several j-slices over the same three matrices (the engine's forEachTripleSlice gives
 * them a unit at a time), so that a kernel set can keep its threads or GPU busy across slices. Terms are
 * (pair index into `planePairs`, z plane): for slice s, group g and output (r, c),
 *
 *   out[s][g][r·zCount + c] = Σ_{(q, zp) ∈ g} Σ_w popc(x[xFirst+r][pairs[q][0]][w] AND y[yRow][pairs[q][1]][w] AND z[zFirst+c][zp][w])
 *
 * i.e. a 2-way popcount-GEMM of the pair-product planes (x_i AND y_j) against z. Kernel sets build those
 * products where their operands live (host memory, or the GPU's resident copies).
 */
export interface PopcountGemm3Request {
  readonly x: PlaneMatrix;
  readonly y: PlaneMatrix;
  readonly z: PlaneMatrix;
  readonly planePairs: readonly PlanePair[];
  /** One output matrix per group and slice; terms are [pair index, z plane]. */
  readonly termGroups: readonly TermGroup[];
  readonly slices: readonly Tally3Slice[];
  /**
   * Block indices of x, y and z (absent: x, y, z in that order). Vectors of lower blocks come first, and within one
   * block x before y before z: the global order of a triple's vectors, which kernels whose per-field term is not
   * symmetric in floating point follow (min-plus, minPlusContract.ts); popcount kernels ignore it.
   */
  readonly blockIndices?: readonly [x: number, y: number, z: number];
}

/** Outputs of a 3-way request: `out[s][g]` is slice s's group g, xCount × zCount row-major, exact. */
export type PopcountGemm3Result = Uint32Array[][];

/**
 * Per-vector sums of a plane matrix, over its fields (SPEC §3's Σ c1 and present-field counts of a slab):
 * `sums[r] = Σ_{p ∈ countPlanes} popcount(row r, plane p)`, `counts[r] = popcount(row r, maskPlane)`.
 */
export interface VectorSumsRequest {
  readonly planes: PlaneMatrix;
  /** Planes whose bits add up to c1 (CCC: H and L; DUO: D). */
  readonly countPlanes: readonly number[];
  /** The presence plane, or null (dense layouts: counts are then 0 and the caller knows nf). */
  readonly maskPlane: number | null;
  /**
   * Present when the planes are still being written (rows become final in order): rows `[0, rowEnd)` may be read
   * once `rowsReady(rowEnd)` resolves, so a GPU set can upload the first rows while later ones are built. A
   * rejection fails the request with its reason.
   */
  readonly rowsReady?: (rowEnd: number) => Promise<void>;
}

/** Exact sums of a VectorSumsRequest, one entry per vector row (pads give 0). */
export interface VectorSums {
  readonly sums: Float64Array;
  readonly counts: Float64Array;
}

/** Where a kernel set computes, for run reports: the CPU, or one GPU and its place among the host's GPUs. */
export interface ComputeDevice {
  readonly description: string;
  /** Index among the host's GPUs, and their number; null on the CPU or when unknown. */
  readonly gpuIndex: number | null;
  readonly gpuCount: number | null;
}

/** The device of every CPU kernel set. */
export const CPU_DEVICE: ComputeDevice = { description: 'cpu', gpuIndex: null, gpuCount: null };

/**
 * What a run will ask of a kernel set, told before its first request so that the kernel set can get ready
 * meanwhile (a GPU kernel set compiles its programs while the engine loads its input). Shapes only.
 */
export interface RunPreview {
  /** Planes per vector and words per plane of the run's vector blocks, and their planeWordRanges (PlaneMatrix). */
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  readonly planeWordRanges?: readonly (PlaneWordRange | null)[] | null;
  /** Term groups of its 2-way requests (`run`, `finalizePairs`), or null when it makes none. */
  readonly pairTermGroups: readonly TermGroup[] | null;
  /** Plane pairs and term groups of its 3-way requests (`run3`, `finalizeTriples`), or null in a 2-way run. */
  readonly triples: { readonly planePairs: readonly PlanePair[]; readonly termGroups: readonly TermGroup[] } | null;
  /**
   * Device finalize (`finalizePairs` in a 2-way run: its value program; `finalizeTriples` in a 3-way one: its
   * formulas or value program), whether it returns records and the histogram layout it counts in; or null.
   */
  readonly deviceFinalize:
    | {
        readonly kind: 'pairs'; readonly values: PairValueProgram; readonly records: boolean; readonly histogram?: HistogramLayout | null;
        /** Whether its requests carry an LD window (PairFinalizeRequest.window). */
        readonly windowed?: boolean;
      }
    | { readonly kind: 'triples'; readonly values: TripleFinalizeValues; readonly records: boolean; readonly histogram?: HistogramLayout | null }
    | null;
  /** The planes of its `vectorSums` requests (the run's layout). */
  readonly vectorSums: Pick<VectorSumsRequest, 'countPlanes' | 'maskPlane'>;
  /** The code table of its blocks when they are held as codes (PlaneMatrix.codeRows / codeRecords); absent or null: words. */
  readonly codeTable?: readonly number[] | null;
}

/** What fixes a kernel set's choice of kernel for 2-way requests: their term groups and the operands' plane shape. */
export interface FinalizePairsShape {
  readonly termGroups: readonly TermGroup[];
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
}

/** A kernel set: runs popcount-GEMMs, possibly on a pool of threads. */
export interface PopcountGemm {
  /** Name of the kernel set, e.g. `ref` or `wasm-simd`. */
  readonly name: string;
  /** Number of threads the kernel set computes with. */
  readonly numThreads: number;
  readonly device: ComputeDevice;
  run(request: PopcountGemmRequest): Promise<PopcountGemmResult>;
  /** The 3-way product (mGEMM3) of several j-slices; see PopcountGemm3Request. */
  run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result>;
  /** Per-vector sums of a matrix (see VectorSumsRequest); a GPU kernel set computes them where the planes lie. */
  vectorSums(request: VectorSumsRequest): Promise<VectorSums>;
  /**
   * Present on kernel sets that finalize 2-way requests where their tallies lie (see pairFinalize.ts): the
   * tallies never come back, only the checksum partial sum, counts and passing records.
   */
  finalizePairs?(request: PairFinalizeRequest): Promise<PairFinalizeResult>;
  /**
   * Present on kernel sets with `finalizePairs` whose rate depends on the size of a request: the fewest pairs (rows ×
   * columns) of one such request at which its GEMM runs at the kernel set's rate (a GPU needs enough workgroup tiles to
   * fill its compute units several times over), bounded by the most pairs one request with records takes (its per-pair
   * scratch in one binding). Callers free to choose their panels (a top-N run) make them at least this large.
   */
  fullRatePairs?(shape: FinalizePairsShape): number;
  /** The same for 3-way (mGEMM3, run3-shaped) requests (see tripleFinalize.ts): products, GEMMs and finalize where the planes lie. */
  finalizeTriples?(request: TripleFinalizeRequest): Promise<TripleFinalizeResult>;
  /**
   * Present on kernel sets that keep operands where they compute (a GPU's memory): starts moving `planes` there
   * ahead of the requests that use them, e.g. a block received from another rank while the last one computes,
   * and returns at once. An upload error surfaces at the first request that uses the matrix. With `rowsReady`
   * (as in VectorSumsRequest) the planes are still arriving: rows are moved as they become final.
   */
  prefetch?(planes: PlaneMatrix, rowsReady?: (rowEnd: number) => Promise<void>): void;
  /**
   * Present on kernel sets that can get ready for a run's requests ahead of them (GPU program compiles): starts
   * that and returns at once. Nothing is lost: a failure surfaces at the first request that needs what failed.
   */
  prepareStart?(preview: RunPreview): void;
  /**
   * Present on kernel sets that can reuse memory: hands back the tallies of an earlier `run` (the arrays it
   * returned) or `run3` (its slices' arrays, flattened) that the caller no longer reads, nor anything else does; a
   * later call may write them. Fresh memory is faulted in page by page, and the process unmaps it again when it is
   * collected, which flushes the TLB of every core the process runs on.
   */
  recycle?(tallies: PopcountGemmResult): void;
  /**
   * Present on the CPU kernel sets: plain data with which another thread of this process computes 2-way requests
   * itself with the same microkernel (`openThreadGemm`), the same exact tallies — for workers that compute and
   * finalize many small requests in one task, where a message per request would cost more than its GEMM.
   */
  readonly threadKernel?: ThreadGemmKernel;
  /**
   * Present on kernel sets whose worker threads host the `workerGuest` module they were created with: runs its tasks
   * on the kernel threads (urgent ones ahead of queued GEMM panels), so that a caller's work on the tallies shares
   * the threads that computed them rather than competing with them from threads of its own.
   */
  readonly guestTasks?: GuestTaskRunner;
  /** Present on kernel sets that take matrices held as code rows (PlaneMatrix.codeRows). */
  readonly planesFromCodeRows?: true;
  /** Frees worker threads; the object is unusable afterwards. */
  close(): Promise<void>;
}

/** Which kernel set: the plain reference or the optimized CPU kernels. */
export type CpuBackendName = 'ref' | 'cpu';

/** Every kernel set: the CPU ones and the GPU kernels through WebGPU. */
export type BackendName = CpuBackendName | 'webgpu';

export interface PopcountGemmOptions {
  readonly backend: BackendName;
  /** Worker threads for the optimized kernels (default: the machine's cores). Ignored by `ref`. */
  readonly numThreads?: number;
  /** `webgpu`: which of the host's GPUs, as slot modulo their number (the node-local rank); default the first. */
  readonly gpuSlot?: number;
  /** Real-valued operands (minPlusContract.ts): a min-plus kernel set instead of a popcount one; absent or null: bit planes. */
  readonly realOperands?: RealOperands | null;
  /**
   * A module the kernel set's worker threads load and run tasks of (PopcountGemm.guestTasks); kernel sets without
   * worker threads (one thread, `ref`, the GPU, min-plus) ignore it. Absent or null: none.
   */
  readonly workerGuest?: WorkerGuestSpec | null;
}

/**
 * A kernel set started before its run's data are known (registry.ts startPopcountGemm): its worker threads start and
 * load their microkernels — and the guest module named by `PopcountGemmStartOptions.workerGuestPreload` — while the
 * caller reads its input; `complete` gives them the guest's data and resolves with the ready kernel set.
 */
export interface PopcountGemmStart {
  /** The options it was started with: a run takes it only where its own kernel set would be the same. */
  readonly options: PopcountGemmStartOptions;
  /**
   * The kernel set, its worker threads hosting `workerGuest` (null: none); rejects when a thread failed to start or
   * the guest failed to load (its threads stopped). Once only.
   */
  complete(workerGuest: WorkerGuestSpec | null): Promise<PopcountGemm>;
  /** Stops the threads of a start that will not be completed (nothing once completed). */
  cancel(): Promise<void>;
}

/** PopcountGemmOptions without the guest's data, and the guest module to load meanwhile. */
export interface PopcountGemmStartOptions extends Omit<PopcountGemmOptions, 'workerGuest'> {
  /** The guest module the threads import (and preload with its hint) while they wait for its data; absent or null: none. */
  readonly workerGuestPreload?: WorkerGuestPreload | null;
}
