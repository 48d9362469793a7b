// Kernel set `webgpu-bitwise`: the popcount-GEMM on a WebGPU device (any adapter, lavapipe included).
// Operands stay resident on the GPU; a request is cut into sub-blocks that respect the binding and
// dispatch limits, each computed by the bitwise tally program and read back into the result.

import { UserError } from '../../../src/core/errors.js';
import type { PlaneMatrix, PopcountGemm, PopcountGemmRequest, PopcountGemmResult, TermGroup } from '../../contract.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import { describeAdapter, openGpuDevice, requestGpuAdapter, type GpuCapabilities } from './gpuAdapter.js';
import { ResidentPlanes, type PlaneChunk } from './residentPlanes.js';
import { chooseTally2Geometry } from './tally2Geometry.js';
import { createTally2Program, type Tally2Program } from './tally2Program.js';
import { WebgpuRunner, type Dispatch } from './webgpuRunner.js';

/** Name of this kernel set: WebGPU, AND + countOneBits over u32 words. */
export const WEBGPU_BITWISE_KERNEL_SET_NAME = 'webgpu-bitwise';

export interface WebgpuPopcountGemmOptions {
  /**
   * Largest storage binding used, in bytes (default and ceiling: the device's limit). Tests set it
   * small to drive operands and outputs through several chunks and sub-blocks.
   */
  readonly maxBindingBytes?: number;
  /** GPU bytes of resident operands before the least recently used are freed (default 4 GiB). */
  readonly residentBytes?: number;
}

/** Output bytes of one dispatch: bounds the read-back buffer (and host copy) of one sub-block. */
const OUTPUT_BYTES_PER_DISPATCH = 256 << 20;
const DEFAULT_RESIDENT_BYTES = 4 * 2 ** 30;

/** A sub-block of a request: rows [rowFirst, +numRows) of A's chunk against columns [colFirst, +numCols) of B's chunk. */
interface SubBlock {
  readonly aChunk: PlaneChunk;
  readonly bChunk: PlaneChunk;
  /** Row indices of the operand matrices (not of the request). */
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
}

/** Opens the adapter's device; a missing adapter is a UserError naming what is needed. */
export async function createPopcountGemmWebgpu(options: WebgpuPopcountGemmOptions = {}): Promise<PopcountGemmWebgpu> {
  const adapter = await requestGpuAdapter();
  if (adapter === null) {
    throw new UserError('--backend webgpu: no WebGPU adapter found (a GPU with a Vulkan driver, or the Vulkan CPU driver lavapipe, is needed)');
  }
  const opened = await openGpuDevice(adapter);
  return new PopcountGemmWebgpu(new WebgpuRunner(opened), options);
}

/** True when a WebGPU adapter exists (for `--backend auto`), with its description. */
export async function probeWebgpu(): Promise<{ available: boolean; description: string }> {
  const adapter = await requestGpuAdapter();
  return adapter === null ? { available: false, description: 'no WebGPU adapter' } : { available: true, description: describeAdapter(adapter) };
}

export class PopcountGemmWebgpu implements PopcountGemm {
  readonly name = WEBGPU_BITWISE_KERNEL_SET_NAME;
  /** The GPU is driven from the calling thread. */
  readonly numThreads = 1;
  private readonly maxBindingBytes: number;
  private readonly resident: ResidentPlanes;
  private readonly programs = new Map<string, Tally2Program>();
  private output: GPUBuffer | null = null;
  /** Requests run one after another: they share the output buffer. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly runner: WebgpuRunner, options: WebgpuPopcountGemmOptions) {
    const deviceMax = runner.capabilities.maxStorageBufferBindingSize;
    this.maxBindingBytes = Math.min(deviceMax, options.maxBindingBytes ?? deviceMax);
    this.resident = new ResidentPlanes(runner, this.maxBindingBytes, options.residentBytes ?? DEFAULT_RESIDENT_BYTES);
  }

  /** The adapter this kernel set runs on and the limits it tiles from. */
  get capabilities(): GpuCapabilities {
    return this.runner.capabilities;
  }

  run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    const result = this.queue.then(() => this.runNow(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Kernel-only timing: runs the request's dispatches `repetitions` times (one submit each, no read-back)
   * and returns the seconds of each repetition. Operands are uploaded before the first.
   */
  async timeKernels(request: PopcountGemmRequest, repetitions: number): Promise<number[]> {
    checkPopcountGemmRequest(request);
    const plan = this.plan(request);
    if (plan === null) return [];
    const dispatches = plan.blocks.map((block) => this.dispatchOf(plan.program, block, request, plan.output));
    await this.runner.runDispatches(dispatches);
    const seconds: number[] = [];
    for (let rep = 0; rep < repetitions; rep++) {
      const start = performance.now();
      await this.runner.runDispatches(dispatches);
      seconds.push((performance.now() - start) / 1000);
    }
    return seconds;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    this.resident.clear();
    this.output?.destroy();
    this.runner.destroy();
  }

  private async runNow(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    if (this.closed) throw new Error(`${this.name}: run() after close()`);
    checkPopcountGemmRequest(request);
    const numGroups = request.termGroups.length;
    const outputs = request.termGroups.map(() => new Uint32Array(request.aCount * request.bCount));
    const plan = this.plan(request);
    if (plan === null) return outputs;
    for (const block of plan.blocks) {
      const numWords = numGroups * block.numRows * block.numCols;
      const words = await this.runner.runAndReadBack(this.dispatchOf(plan.program, block, request, plan.output), plan.output, numWords * 4);
      scatter(words, block, request, outputs);
    }
    return outputs;
  }

  /** The program and sub-blocks of a request, or null when there is nothing to compute (all outputs zero). */
  private plan(request: PopcountGemmRequest): { program: Tally2Program; blocks: SubBlock[]; output: GPUBuffer } | null {
    const { termGroups } = request;
    if (request.aCount === 0 || request.bCount === 0 || termGroups.every((g) => g.length === 0)) return null;
    const program = this.programFor(termGroups, request.a, request.b);
    const pinned = [request.a, request.b];
    const aChunks = this.resident.chunksOf(request.a, pinned);
    const bChunks = this.resident.chunksOf(request.b, pinned);
    const maxOutWords = Math.floor(Math.min(this.maxBindingBytes, OUTPUT_BYTES_PER_DISPATCH) / (4 * termGroups.length));
    const maxGroups = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks: SubBlock[] = [];
    for (const aChunk of aChunks) {
      const rowLo = Math.max(request.aFirst, aChunk.firstRow);
      const rowHi = Math.min(request.aFirst + request.aCount, aChunk.firstRow + aChunk.numRows);
      if (rowHi <= rowLo) continue;
      for (const bChunk of bChunks) {
        const colLo = Math.max(request.bFirst, bChunk.firstRow);
        const colHi = Math.min(request.bFirst + request.bCount, bChunk.firstRow + bChunk.numRows);
        if (colHi <= colLo) continue;
        const colsPer = Math.min(colHi - colLo, maxOutWords, maxGroups * program.tileCols);
        for (let colFirst = colLo; colFirst < colHi; colFirst += colsPer) {
          const numCols = Math.min(colsPer, colHi - colFirst);
          const rowsPer = Math.min(rowHi - rowLo, Math.floor(maxOutWords / numCols), maxGroups * program.tileRows);
          for (let rowFirst = rowLo; rowFirst < rowHi; rowFirst += rowsPer) {
            const numRows = Math.min(rowsPer, rowHi - rowFirst);
            // Under strictUpper only r < c is needed: a sub-block whose every row is ≥ every column has nothing.
            if (request.strictUpper && rowFirst >= colFirst + numCols - 1) continue;
            blocks.push({ aChunk, bChunk, rowFirst, numRows, colFirst, numCols });
          }
        }
      }
    }
    const maxBlockWords = Math.max(0, ...blocks.map((b) => b.numRows * b.numCols * termGroups.length));
    return { program, blocks, output: this.outputBuffer(maxBlockWords * 4) };
  }

  private dispatchOf(program: Tally2Program, block: SubBlock, request: PopcountGemmRequest, output: GPUBuffer): Dispatch {
    const { strictUpper, a: { wordsPerPlane } } = request;
    return {
      program,
      storage: [block.aChunk.buffer, block.bChunk.buffer, output],
      uniforms: {
        aRowFirst: block.rowFirst - block.aChunk.firstRow, aCount: block.numRows,
        bRowFirst: block.colFirst - block.bChunk.firstRow, bCount: block.numCols,
        vec4PerPlane: wordsPerPlane / 4,
        skipBelowDiagonal: strictUpper ? 1 : 0,
        diagonalOffset: block.rowFirst - block.colFirst,
      },
      workgroups: [Math.ceil(block.numCols / program.tileCols), Math.ceil(block.numRows / program.tileRows)],
    };
  }

  private programFor(termGroups: readonly TermGroup[], a: PlaneMatrix, b: PlaneMatrix): Tally2Program {
    const key = `${a.numPlanes}/${b.numPlanes}/${JSON.stringify(termGroups)}`;
    let program = this.programs.get(key);
    if (program === undefined) {
      const geometry = chooseTally2Geometry(termGroups.length, a.numPlanes, b.numPlanes, this.runner.capabilities);
      program = createTally2Program({ termGroups, numPlanesA: a.numPlanes, numPlanesB: b.numPlanes, geometry });
      this.programs.set(key, program);
    }
    return program;
  }

  /** The shared output buffer, grown to at least `numBytes`. */
  private outputBuffer(numBytes: number): GPUBuffer {
    if (this.output === null || this.output.size < numBytes) {
      this.output?.destroy();
      this.output = this.runner.createStorageBuffer(Math.max(16, numBytes), { readBack: true });
    }
    return this.output;
  }
}

/** Copies a sub-block's outputs (group-major, numRows × numCols each) into the request's outputs. */
function scatter(words: Uint32Array, block: SubBlock, request: PopcountGemmRequest, outputs: Uint32Array[]): void {
  const blockWords = block.numRows * block.numCols;
  const rowOffset = block.rowFirst - request.aFirst;
  const colOffset = block.colFirst - request.bFirst;
  outputs.forEach((out, g) => {
    const src = words.subarray(g * blockWords, (g + 1) * blockWords);
    if (block.numCols === request.bCount) {
      out.set(src, rowOffset * request.bCount);
      return;
    }
    for (let r = 0; r < block.numRows; r++) {
      out.set(src.subarray(r * block.numCols, (r + 1) * block.numCols), (rowOffset + r) * request.bCount + colOffset);
    }
  });
}
