// What the native kernel's tests share (nativeLayouts.test.ts, complementTerms.test.ts): requests built from field bits
// (with the bits kept for the naive definition on small shapes), their row panels, outputs filled with a sentinel so
// that cells a task must not touch can be checked, and the native addon, required where the CPU can run it.
import { existsSync, readFileSync } from 'node:fs';
import type { PlaneWordRange, PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import { loadNativePopcountKernel } from '../../src/mgemm/kernels/native/nativePopcount.js';
import type { RowPanel } from '../../src/mgemm/kernels/wasm/gemmTask.js';
import { planesFromFieldBits, type FieldBits } from './planeFixtures.js';

/** What an output cell holds until a task writes it. */
export const SENTINEL = 0xdeadbeef;

/** A request to run, cut into panels at `cuts`. */
export interface KernelCase {
  readonly name: string;
  readonly request: PopcountGemmRequest;
  /** Field bits of a and b, for the naive definition (small cases), or null (the reference kernel only). */
  readonly bits: { readonly a: FieldBits; readonly b: FieldBits } | null;
  /** Rows at which the request is cut into panels (each a task), besides 0 and aCount. */
  readonly cuts: readonly number[];
}

/** A case as written in a test: field bits, the rows and columns taken, and its groups. */
export interface KernelCaseShape {
  readonly name: string;
  readonly aBits: FieldBits;
  readonly bBits: FieldBits | null; // null: strictUpper on a itself
  readonly numPlanes: number;
  readonly numField: number;
  readonly aFirst: number;
  readonly aCount: number;
  readonly bFirst: number;
  readonly bCount: number;
  readonly termGroups: readonly TermGroup[];
  readonly planeWordRanges?: readonly (PlaneWordRange | null)[];
  readonly cuts?: readonly number[];
  readonly naive?: boolean;
}

export function kernelCaseOf(shape: KernelCaseShape): KernelCase {
  const a = planesFromFieldBits(shape.aBits, shape.numPlanes, shape.numField, true);
  const b = shape.bBits === null ? a : planesFromFieldBits(shape.bBits, shape.numPlanes, shape.numField, true);
  const request: PopcountGemmRequest = {
    a, aFirst: shape.aFirst, aCount: shape.aCount, b, bFirst: shape.bFirst, bCount: shape.bCount, termGroups: shape.termGroups,
    strictUpper: shape.bBits === null, planeWordRanges: shape.planeWordRanges ?? null,
  };
  const bits = shape.naive === true ? { a: shape.aBits, b: shape.bBits ?? shape.aBits } : null;
  return { name: shape.name, request, bits, cuts: shape.cuts ?? [] };
}

/** The request's row panels, cut at `cuts` (strictUpper: each panel's columns start right of its first row). */
export function panelsOf(request: PopcountGemmRequest, cuts: readonly number[]): RowPanel[] {
  const bounds = [0, ...cuts, request.aCount];
  return bounds.slice(1).map((rowEnd, k) => ({ rowBegin: bounds[k], rowEnd, colBegin: request.strictUpper ? bounds[k] + 1 : 0 }));
}

/** One output per group on one shared buffer, starting `shiftWords` u32 past its start, every cell SENTINEL. */
export function sentinelOutputs(request: PopcountGemmRequest, shiftWords: number): Uint32Array[] {
  const size = request.aCount * request.bCount;
  const buffer = new SharedArrayBuffer(4 * (shiftWords + size * request.termGroups.length));
  return request.termGroups.map((_, g) => new Uint32Array(buffer, 4 * (shiftWords + g * size), size).fill(SENTINEL));
}

/**
 * The first few wrong cells of a task's outputs: the panel's needed cells (strictUpper: right of the diagonal) must
 * equal `expected`, cells of other rows and left of colBegin must keep the SENTINEL.
 */
export function panelMismatches(request: PopcountGemmRequest, panel: RowPanel, outputs: readonly Uint32Array[], expected: readonly Uint32Array[]): string[] {
  const mismatches: string[] = [];
  outputs.forEach((out, g) => {
    for (let r = 0; r < request.aCount && mismatches.length < 5; r++) {
      const inPanel = r >= panel.rowBegin && r < panel.rowEnd;
      for (let c = 0; c < request.bCount && mismatches.length < 5; c++) {
        const at = r * request.bCount + c;
        const needed = inPanel && c >= panel.colBegin && (!request.strictUpper || c > r);
        const untouched = !inPanel || c < panel.colBegin;
        if (needed && out[at] !== expected[g][at]) mismatches.push(`group ${g} [${r}][${c}]: ${out[at]}, expected ${expected[g][at]}`);
        if (untouched && out[at] !== SENTINEL) mismatches.push(`group ${g} [${r}][${c}] outside the panel written: ${out[at]}`);
      }
    }
  });
  return mismatches;
}

/** The CPU's /proc/cpuinfo flags line says it has `flag` (false off Linux x64). */
export function cpuHasFlag(flag: string): boolean {
  return process.arch === 'x64' && existsSync('/proc/cpuinfo') && new RegExp(`\\b${flag}\\b`).test(readFileSync('/proc/cpuinfo', 'utf8'));
}

/** The native kernel addon; a CPU with AVX512_VPOPCNTDQ must have it built (the tests would otherwise skip silently). */
export const nativeStatus = loadNativePopcountKernel();
if (cpuHasFlag('avx512_vpopcntdq') && !nativeStatus.available) throw new Error(`the CPU has AVX512_VPOPCNTDQ but ${nativeStatus.reason}`);
