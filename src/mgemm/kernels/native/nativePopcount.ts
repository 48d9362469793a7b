// Loads the native AVX-512 popcount-GEMM kernel (build/native/snptally_popcount.node, see
// src/popcountAvx512.cc) and says why it cannot be used when it cannot: not built, or a CPU without
// AVX512F + AVX512_VPOPCNTDQ. The kernel computes GemmTasks (mgemm/kernels/wasm/gemmTask.ts) in place.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { GemmTask } from '../wasm/gemmTask.js';
import type { VectorSums, VectorSumsRequest } from '../../contract.js';

/** Name of this kernel set's native microkernels: AVX-512 VPOPCNTQ, 4×4 tiles (and 12×32 vertical ones, chosen per task). */
export const NATIVE_KERNEL_NAME = 'avx512-vpopcntq_4x4';
/** The native kernel set's name where its AMX-INT8 layout can run too (runs name it, so that a figure says which ran). */
export const NATIVE_AMX_KERNEL_NAME = `${NATIVE_KERNEL_NAME}+amx`;

/**
 * Which native kernel computes a task: `auto` (the default) chooses by the task's shape (src/layoutChoice.cc);
 * `horizontal` (4×4 tiles, sums across lanes), `vertical` (12×32 tiles of packed operands, a column per lane) and `amx`
 * (32×32 tiles of AMX-INT8 TDPBUUD on bits expanded to bytes; only where amxStatus() says available) force one.
 */
export type NativeKernelLayout = 'auto' | 'horizontal' | 'vertical' | 'amx';

/**
 * Whether a one-term group whose plane is mostly ones on one side (a presence plane) runs as the other side's popcount
 * less a sparse correction over the zero fields (src/complementTerms.cc): `auto` (the default) where its cost model
 * expects it to be faster, `never`, or `always` wherever it applies (tests).
 */
export type NativeComplementChoice = 'auto' | 'never' | 'always';

/** Whether this process may use AMX-INT8 (CPUID and Linux's permission, asked once per process), or why not. */
export type NativeAmxStatus = { readonly available: true } | { readonly available: false; readonly reason: string };

/** Options of NativePopcountKernel.runTask. */
export interface NativeRunOptions {
  readonly layout?: NativeKernelLayout;
  /** false: `auto` never picks AMX (a kernel set of more than AMX_MAX_KERNEL_THREADS threads). */
  readonly amx?: boolean;
  readonly complement?: NativeComplementChoice;
}

/**
 * Kernel threads of one set up to which `auto` may pick AMX. AMX's per-thread rate falls steeply as cores compute at
 * once (the bits are expanded to bytes: eight times the operand traffic), while the VPOPCNTQ kernels' rate holds, so
 * past this many threads the popcount kernels compute more in all (figures in docs/performance.md, "AMX and threads").
 */
export const AMX_MAX_KERNEL_THREADS = 4;

/** Whether a native kernel set of `numThreads` threads lets `auto` pick AMX (where the process may use it at all). */
export function amxAllowedFor(numThreads: number): boolean {
  return numThreads <= AMX_MAX_KERNEL_THREADS;
}

/** The native kernel's functions. */
export interface NativePopcountKernel {
  /**
   * Computes the task's panel of every output: each cell it computes is overwritten (with strictUpper, cells r ≥ c of
   * the panel's rows are unspecified); rows outside the panel and columns left of colBegin are left alone.
   */
  runTask(task: GemmTask, options?: NativeRunOptions): void;
  /** Whether layout `amx` can run here (`auto` uses it where its cost model says it is faster). */
  amxStatus(): NativeAmxStatus;
}

interface NativeAddon {
  runTask(task: GemmTask, options?: NativeRunOptions): void;
  cpuSupported(): boolean;
  amxStatus(): { available: boolean; reason: string };
  packCodeRows(
    packed: Uint8Array, src: number, bytesPerRow: number, numRows: number, numField: number, bitsOfCode: readonly number[],
    words: Uint32Array, rowBase: number, numPlanes: number, wordsPerPlane: number,
  ): void;
  planeRowSums(
    words: Uint32Array, numPlanes: number, wordsPerPlane: number, rowFirst: number, rowEnd: number, countPlanes: readonly number[],
    maskPlane: number, sums: Float64Array, counts: Float64Array,
  ): void;
}

/** Packed code rows: `numRows` rows of `numField` fields from byte `src` of `packed`, `bytesPerRow` apart. */
export interface CodeRows {
  readonly packed: Uint8Array;
  readonly src: number;
  readonly bytesPerRow: number;
  readonly numRows: number;
  readonly numField: number;
}

/** Where rows of planes go: row k's plane p at `words[rowBase + (k·numPlanes + p)·wordsPerPlane]`. */
export interface PlaneRowsTarget {
  readonly words: Uint32Array;
  readonly rowBase: number;
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
}

/** The addon's O(rows × fields) helpers (src/codePlanes.cc), the same results as their JS forms. */
export interface NativeCodePlanes {
  /** engine/blocks/planePacking.ts packRowPlanes of each row (without plane word segments), `bitsOfCode` as PlaneLayout's. */
  packCodeRows(rows: CodeRows, bitsOfCode: readonly number[], target: PlaneRowsTarget): void;
  /** Rows `[rowFirst, rowEnd)` of the reference vectorSums (ref/popcountGemmRef.ts): sums added to, counts set. */
  planeRowSums(request: VectorSumsRequest, out: VectorSums, rowFirst: number, rowEnd: number): void;
}

export type NativeKernelStatus =
  | { readonly available: true; readonly kernel: NativePopcountKernel }
  | { readonly available: false; readonly reason: string };

/** dist/src/mgemm/kernels/native/ → the repository's build/native/. */
const ADDON_URL = new URL('../../../../../build/native/snptally_popcount.node', import.meta.url);
const UNAVAILABLE_URL = new URL('../../../../../build/native/UNAVAILABLE', import.meta.url);

let status: NativeKernelStatus | undefined;
let codePlanes: NativeCodePlanes | null = null;

function amxStatusOf(addon: NativeAddon): NativeAmxStatus {
  const { available, reason } = addon.amxStatus();
  return available ? { available: true } : { available: false, reason: `AMX-INT8 unavailable: ${reason}` };
}

/** The native kernel, loaded once per thread, or why it is unavailable. */
export function loadNativePopcountKernel(): NativeKernelStatus {
  if (status !== undefined) return status;
  const addonPath = fileURLToPath(ADDON_URL);
  const unavailablePath = fileURLToPath(UNAVAILABLE_URL);
  if (!existsSync(addonPath)) {
    const reason = existsSync(unavailablePath)
      ? readFileSync(unavailablePath, 'utf8').trim()
      : 'not built (in a source checkout: npm run build; an installed package builds it at install, unless its install script was skipped)';
    status = { available: false, reason: `native kernel unavailable: ${reason}` };
    return status;
  }
  const addon = createRequire(import.meta.url)(addonPath) as NativeAddon;
  if (addon.cpuSupported()) codePlanes = codePlanesOf(addon);
  status = addon.cpuSupported()
    ? { available: true, kernel: { runTask: (task, options) => addon.runTask(task, options), amxStatus: () => amxStatusOf(addon) } }
    : { available: false, reason: 'native kernel unavailable: this CPU lacks AVX512F/AVX512_VPOPCNTDQ' };
  return status;
}

/**
 * The native kernel set's name on this machine for a set of `numThreads` threads: NATIVE_AMX_KERNEL_NAME where
 * amxStatus() says AMX can run and amxAllowedFor(numThreads).
 */
export function nativeKernelSetName(numThreads: number): string {
  const native = loadNativePopcountKernel();
  const amx = native.available && native.kernel.amxStatus().available && amxAllowedFor(numThreads);
  return amx ? NATIVE_AMX_KERNEL_NAME : NATIVE_KERNEL_NAME;
}

/** The native code-row packing and plane popcounts where the native kernel loads here (its CPU check passed), else null. */
export function loadNativeCodePlanes(): NativeCodePlanes | null {
  loadNativePopcountKernel();
  return codePlanes;
}

function codePlanesOf(addon: NativeAddon): NativeCodePlanes {
  return {
    packCodeRows: (rows, bitsOfCode, target) => addon.packCodeRows(
      rows.packed, rows.src, rows.bytesPerRow, rows.numRows, rows.numField, bitsOfCode, target.words, target.rowBase, target.numPlanes, target.wordsPerPlane),
    planeRowSums: (request, out, rowFirst, rowEnd) => {
      const { words, numPlanes, wordsPerPlane } = request.planes;
      addon.planeRowSums(words, numPlanes, wordsPerPlane, rowFirst, rowEnd, request.countPlanes, request.maskPlane ?? -1, out.sums, out.counts);
    },
  };
}
