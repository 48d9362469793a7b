// Planning of 2-way requests on the device (requestPlan.ts RequestPlan): the kernel family of a request
// (kernelChoice.ts; the u8 kernels' K slabs, u8Slabs.ts), its sub-blocks (subBlocks.ts) over the resident operand
// chunks, and per sub-block the dispatches of the bitwise tally program or, for the u8 kernels, of the expansions
// into u8 counts and one integer GEMM per term group (B's expansions kept across requests, expandedOperands.ts).
// The 2-way path, device finalize and the 3-way driver (tally3Webgpu.ts) all compute through these plans.

import { termWordRange, type FinalizePairsShape, type PopcountGemmRequest, type TermGroup } from '../../../contract.js';
import { EXPAND_WORKGROUP } from '../programs/expandProgram.js';
import type { ProgramLibrary } from '../programs/programLibrary.js';
import { U8_GEMM_COL_TILE, U8_GEMM_ROW_TILE } from '../programs/u8GemmProgram.js';
import type { WgslProgram } from '../programs/wgslProgram.js';
import type { ExpandedOperands } from '../operands/expandedOperands.js';
import type { PlaneChunk, ResidentPlanes } from '../operands/residentPlanes.js';
import type { GrowingBuffers } from '../runtime/growingBuffers.js';
import { foldWorkgroups, type BufferRange, type Dispatch, type WebgpuRunner } from '../runtime/webgpuRunner.js';
import { chooseKernelFamily, factoredParts, type KernelFamily } from './kernelChoice.js';
import { disjointGroupsOfRequest } from './disjointGroups.js';
import { OUTPUT_BYTES_PER_DISPATCH, type RequestPlan, type SubBlock } from './requestPlan.js';
import { cutSubBlocks, type SubBlockLimits } from './subBlocks.js';
import { planU8Slabs, U8_SLAB_UNIT_BYTES, type U8Slab, type U8SlabPlan } from './u8Slabs.js';

/** What the planner works with: the kernel set's device, operands, programs and scratch, and its limits. */
export interface RequestPlannerParts {
  readonly runner: WebgpuRunner;
  readonly resident: ResidentPlanes;
  readonly programs: ProgramLibrary;
  /** Scratch buffers every request shares (outputs, u8 expansions): see PopcountGemmWebgpu. */
  readonly scratch: GrowingBuffers<string>;
  /** Whole B chunks expanded into u8 operands, kept across requests. */
  readonly expandedOperands: ExpandedOperands;
  /** Largest storage binding used, in bytes. */
  readonly maxBindingBytes: number;
  /** Bytes of one expanded u8 operand (within a binding): bounds the rows of a u8 sub-block. */
  readonly expansionBytes: number;
  /** The kernel family asked for (kernelChoice.ts). */
  readonly kernel: KernelFamily | 'auto';
}

/** A request on the u8 kernels: the family, its K slabs (u8Slabs.ts) and a u8 sub-block's most rows (and columns). */
export interface U8Choice {
  readonly family: 'subgroup-matrix' | 'dot4';
  readonly slabPlan: U8SlabPlan;
  readonly expandRows: number;
}

const padRows = (n: number): number => Math.ceil(n / U8_GEMM_ROW_TILE) * U8_GEMM_ROW_TILE;
const padCols = (n: number): number => Math.ceil(n / U8_GEMM_COL_TILE) * U8_GEMM_COL_TILE;

/**
 * Workgroup tiles a 2-way request needs for its GEMM to run at the kernel's rate: WebGPU does not tell how many compute
 * units a GPU has, so enough for the largest measured to take about 8 waves (132 SMs on the H100 / H200, a 128 × 256 u8
 * tile each at a time). There the u8 GEMM of epistasis ran at 8.1e13 u8 MAC/s on 64 tiles (2 Mi-pair panels), 1.4e14 on
 * 128 and 2.1e14 on panels of 2048 tiles; 1024 tiles of the u8 kernel are 32 Mi pairs, or one sub-block when smaller.
 */
export const FULL_RATE_WORKGROUPS = 1024;

/** Plans the kernel set's 2-way requests (and the GEMMs of its 3-way requests). */
export class RequestPlanner {
  constructor(private readonly parts: RequestPlannerParts) {}

  /**
   * The plan of a request, or null when there is nothing to compute (all outputs zero). `aChunks`, when
   * given, are A's rows on the GPU (3-way pair products; `request.a` then only carries their shape).
   */
  async plan(
    request: PopcountGemmRequest, aChunks?: readonly PlaneChunk[], blockOutputBytes: number = OUTPUT_BYTES_PER_DISPATCH,
  ): Promise<RequestPlan | null> {
    const { termGroups } = request;
    if (request.aCount === 0 || request.bCount === 0 || termGroups.every((g) => g.length === 0)) return null;
    const choice = this.familyFor(termGroups, request.a.wordsPerPlane, disjointGroupsOfRequest(request));
    await Promise.all(this.parts.programs.gemmPrograms(choice.family, termGroups, request.a.numPlanes, request.b.numPlanes).map((p) => this.parts.runner.pipelineFor(p)));
    return choice.family === 'bitwise' ? this.planBitwise(request, aChunks, blockOutputBytes) : this.planU8(request, choice, aChunks, blockOutputBytes);
  }

  /**
   * The kernel family of 2-way requests with these groups on planes of `wordsPerPlane` words (see U8Choice);
   * `disjoint`: per group, whether its products are disjoint by the operands' code tables (none when not known).
   */
  familyFor(termGroups: readonly TermGroup[], wordsPerPlane: number, disjoint: readonly boolean[] = []): { readonly family: 'bitwise' } | U8Choice {
    const family = chooseKernelFamily(this.parts.kernel, termGroups, this.parts.runner.capabilities, disjoint);
    // No fields (a field rank that holds none of them): nothing to expand, and the bitwise kernel writes the zeros.
    if (family === 'bitwise' || wordsPerPlane === 0) return { family: 'bitwise' };
    const slabPlan = planU8Slabs(wordsPerPlane * 32, this.parts.expansionBytes);
    const expandRows = Math.floor(this.parts.expansionBytes / slabPlan.slabBytes / U8_GEMM_COL_TILE) * U8_GEMM_COL_TILE;
    // The u8 kernels work on rows padded to 128 and columns padded to 256: when 256 expanded rows or one
    // padded tile of every group's output do not fit a binding, the bitwise kernel (no expansion, no
    // padding) takes the request.
    const tileOutBytes = termGroups.length * U8_GEMM_ROW_TILE * U8_GEMM_COL_TILE * 4;
    if (expandRows < U8_GEMM_COL_TILE || tileOutBytes > Math.min(this.parts.maxBindingBytes, OUTPUT_BYTES_PER_DISPATCH)) return { family: 'bitwise' };
    return { family, slabPlan, expandRows };
  }

  /**
   * Pairs of `workgroups` output tiles of the kernel family of 2-way requests of this shape, but at most a u8 sub-block's
   * (expandRows²): a request is dispatched sub-block by sub-block, so beyond that it adds dispatches, not workgroups to
   * one, and a request of whole sub-blocks leaves no thin remainder.
   */
  pairsOfWorkgroups({ termGroups, numPlanes, wordsPerPlane }: FinalizePairsShape, workgroups: number): number {
    const choice = this.familyFor(termGroups, wordsPerPlane);
    if (choice.family !== 'bitwise') return Math.min(workgroups * U8_GEMM_ROW_TILE * U8_GEMM_COL_TILE, choice.expandRows * choice.expandRows);
    const program = this.parts.programs.tally2(termGroups, numPlanes, numPlanes);
    return workgroups * program.tileRows * program.tileCols;
  }

  /** The output scratch buffer, large enough for the plan's largest sub-block. */
  outputFor(plan: RequestPlan, numGroups: number): GPUBuffer {
    return this.parts.scratch.get('output', Math.max(0, ...plan.blocks.map((blk) => plan.shapeOf(blk).groupWords)) * numGroups * 4);
  }

  private async planBitwise(request: PopcountGemmRequest, aChunks: readonly PlaneChunk[] | undefined, blockOutputBytes: number): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const program = this.parts.programs.tally2(termGroups, a.numPlanes, b.numPlanes, disjointGroupsOfRequest(request));
    const numGroups = termGroups.length;
    const maxGroups = this.parts.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = await this.subBlocks(request, aChunks, {
      maxRows: maxGroups * program.tileRows, maxCols: maxGroups * program.tileCols, rowUnit: 1, colUnit: 1,
      outWords: (rows, cols) => numGroups * rows * cols, outputBytes: blockOutputBytes,
    });
    return {
      family: 'bitwise', blocks,
      shapeOf: (blk) => ({ groupWords: blk.numRows * blk.numCols, rowStride: blk.numCols }),
      dispatchesOf: (blk, output) => [{
        program,
        storage: [blk.aChunk.buffer, blk.bChunk.buffer, output],
        uniforms: {
          aRowFirst: blk.rowFirst - blk.aChunk.firstRow, aCount: blk.numRows,
          bRowFirst: blk.colFirst - blk.bChunk.firstRow, bCount: blk.numCols,
          vec4PerPlane: a.wordsPerPlane / 4, skipBelowDiagonal: request.strictUpper ? 1 : 0,
          diagonalOffset: blk.rowFirst - blk.colFirst,
        },
        workgroups: [Math.ceil(blk.numCols / program.tileCols), Math.ceil(blk.numRows / program.tileRows)],
      }],
    };
  }

  /**
   * Per sub-block, K slab and group g, per factored part of g (kernelChoice.ts factoredParts): expand A's rows and B's
   * columns of the slab into u8 counts (Σ of the part's planes), then one u8 GEMM into group g's padded output, adding
   * to it after the group's first slab and part. Padded rows and columns are zero.
   */
  private async planU8(
    request: PopcountGemmRequest, { family, slabPlan, expandRows }: U8Choice, aChunks: readonly PlaneChunk[] | undefined, blockOutputBytes: number,
  ): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const numGroups = termGroups.length;
    const gemm = this.parts.programs.u8Gemm(family);
    // The GEMMs of the request: per group, its factored parts (each its own expansions), in group order.
    const factors = termGroups.flatMap((g, group) => {
      const parts = factoredParts(g, false);
      if (parts === null) throw new Error('u8 kernels need groups of factored parts');
      return parts.map((f) => ({
        group, expandA: this.parts.programs.expand(a.numPlanes, f.aPlanes), expandB: this.parts.programs.expand(b.numPlanes, f.bPlanes),
        window: groupWordWindow(request, f.aPlanes.flatMap((p) => f.bPlanes.map((q): [number, number] => [p, q]))),
      }));
    });
    // Each GEMM's part of each slab (its words where a plane of it may have bits).
    const slabParts = factors.map(({ window }) => slabPlan.slabs.map((slab) => slabPart(slab, window)));
    const maxGroups = this.parts.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = await this.subBlocks(request, aChunks, {
      maxRows: Math.min(expandRows, maxGroups * gemm.tileRows), maxCols: Math.min(expandRows, maxGroups * gemm.tileCols),
      rowUnit: U8_GEMM_ROW_TILE, colUnit: U8_GEMM_COL_TILE, outWords: (rows, cols) => numGroups * padRows(rows) * padCols(cols),
      outputBytes: blockOutputBytes,
    });
    const { slabs, slabBytes } = slabPlan;
    const expand = (
      program: WgslProgram, chunk: PlaneChunk, first: number, count: number, numRowsPad: number, slab: U8Slab, target: GPUBuffer,
    ): Dispatch => {
      const workgroups = foldWorkgroups(Math.ceil((numRowsPad * slab.numWords * 8) / EXPAND_WORKGROUP), maxGroups);
      return {
        program, storage: [chunk.buffer, target],
        uniforms: {
          rowFirst: first - chunk.firstRow, numRows: count, numRowsPad, wordsPerPlane: a.wordsPerPlane, wordFirst: slab.wordFirst,
          numWords: slab.numWords, numWorkgroupsX: workgroups[0],
        },
        workgroups,
      };
    };
    // B's chunks expanded whole and kept (expandedOperands.ts), where a block's columns can be bound as a range of
    // the expansion (row offsets aligned for a storage binding); per group, by chunk. One at a time: each must not
    // evict one that this request already uses (sparse groups expand B two ways: two chunk-sized expansions).
    // Not when K is cut into slabs: rows that long are cut because the budget holds too few of them.
    const keptB: Map<PlaneChunk, GPUBuffer>[] = [];
    const usedByThisRequest: GPUBuffer[] = [];
    for (const [g, { expandB }] of factors.entries()) {
      const kept = new Map<PlaneChunk, GPUBuffer>();
      keptB.push(kept);
      const part = slabParts[g][0];
      if (slabs.length > 1 || part === null || part.rowBytes % this.parts.runner.capabilities.minStorageBufferOffsetAlignment !== 0) continue;
      for (const chunk of new Set(blocks.map((blk) => blk.bChunk))) {
        const numRowsPad = padCols(chunk.numRows) + U8_GEMM_COL_TILE;
        const buffer = await this.parts.expandedOperands.of(chunk, expandB, part.rowBytes, numRowsPad,
          (target) => expand(expandB, chunk, chunk.firstRow, chunk.numRows, numRowsPad, part, target), usedByThisRequest, part.wordFirst);
        if (buffer === null) continue;
        kept.set(chunk, buffer);
        usedByThisRequest.push(buffer);
      }
    }
    const maxRows = Math.max(0, ...blocks.map((blk) => padRows(blk.numRows)));
    const expandedA = this.parts.scratch.get('expandedA', maxRows * slabBytes);
    const unkeptCols = blocks.filter((blk) => keptB.some((kept) => !kept.has(blk.bChunk))).map((blk) => padCols(blk.numCols));
    const expandedB = unkeptCols.length === 0 ? null : this.parts.scratch.get('expandedB', Math.max(...unkeptCols) * slabBytes);
    /** Dispatches that give group g's B operand of a block's slab: none when its chunk's expansion is kept. */
    const operandB = (g: number, blk: SubBlock, slab: U8Slab): { readonly dispatches: Dispatch[]; readonly bound: GPUBuffer | BufferRange } => {
      const kept = keptB[g].get(blk.bChunk);
      if (kept !== undefined) {
        return { dispatches: [], bound: { buffer: kept, offset: (blk.colFirst - blk.bChunk.firstRow) * slab.rowBytes, size: padCols(blk.numCols) * slab.rowBytes } };
      }
      if (expandedB === null) throw new Error('planU8: a block without a kept B expansion and no scratch');
      return { dispatches: [expand(factors[g].expandB, blk.bChunk, blk.colFirst, blk.numCols, padCols(blk.numCols), slab, expandedB)], bound: expandedB };
    };
    return {
      family, blocks,
      shapeOf: (blk) => ({ groupWords: padRows(blk.numRows) * padCols(blk.numCols), rowStride: padCols(blk.numCols) }),
      dispatchesOf: (blk, output) => {
        // A group's first GEMM writes its output, the later ones (slabs, parts) add to it.
        const written = new Set<number>();
        return slabs.flatMap((_, s) => factors.flatMap(({ expandA, group }, g) => {
          const slab = slabParts[g][s];
          if (slab === null) return [];
          const accumulate = written.has(group) ? 1 : 0;
          written.add(group);
          const b = operandB(g, blk, slab);
          // Consecutive GEMMs with the same A planes and words (sparse T[..c] and T[..m]) share one expansion: the GEMM
          // in between only reads it. This halves sparse 3-way's expansions.
          const before = g > 0 ? slabParts[g - 1][s] : null;
          const expandedBefore = before !== null && factors[g - 1].expandA === expandA && before.wordFirst === slab.wordFirst && before.numWords === slab.numWords;
          return [
            ...(expandedBefore ? [] : [expand(expandA, blk.aChunk, blk.rowFirst, blk.numRows, padRows(blk.numRows), slab, expandedA)]),
            ...b.dispatches,
            {
              program: gemm,
              storage: [expandedA, b.bound, output],
              uniforms: {
                kBytes: slab.rowBytes, outStride: padCols(blk.numCols), outOffset: group * padRows(blk.numRows) * padCols(blk.numCols),
                skipBelowDiagonal: request.strictUpper ? 1 : 0, diagonalOffset: blk.rowFirst - blk.colFirst, accumulate,
              },
              workgroups: [padCols(blk.numCols) / gemm.tileCols, padRows(blk.numRows) / gemm.tileRows],
            },
          ];
        }));
      },
    };
  }

  /** The request's sub-blocks over A's chunks (given, or A's resident ones) and B's resident ones (subBlocks.ts). */
  private async subBlocks(
    request: PopcountGemmRequest, givenAChunks: readonly PlaneChunk[] | undefined, limits: Omit<SubBlockLimits, 'maxBindingBytes'>,
  ): Promise<SubBlock[]> {
    const pinned = [request.a, request.b];
    const aChunks = givenAChunks ?? await this.parts.resident.chunksOf(request.a, pinned);
    const bChunks = await this.parts.resident.chunksOf(request.b, pinned);
    return cutSubBlocks(request, aChunks, bChunks, { ...limits, maxBindingBytes: this.parts.maxBindingBytes });
  }
}

/** Plane words of a u8 window's ends: the K slab unit (u8Slabs.ts), so a window's rows stay whole K steps. */
const WINDOW_UNIT_WORDS = U8_SLAB_UNIT_BYTES / 32;

/**
 * The words a u8 GEMM of `group` sweeps: where any of its terms' two planes may both have bits (contract.ts
 * termWordRange, the request's planeWordRanges: epistasis's class planes meet only in their class's words, so each
 * group's GEMM covers its class alone), widened to whole K slab units; words outside are zero in every term, so the
 * tallies are the same. A group with no such word keeps one unit (its GEMM writes its zeros). Bitwise requests sweep
 * every word (one program for all groups).
 */
export function groupWordWindow(request: PopcountGemmRequest, group: TermGroup): { readonly first: number; readonly end: number } {
  const wordsPerPlane = request.a.wordsPerPlane;
  let first = wordsPerPlane;
  let end = 0;
  for (const [pa, pb] of group) {
    const [termFirst, termEnd] = termWordRange(request, pa, pb);
    if (termEnd > termFirst) {
      first = Math.min(first, termFirst);
      end = Math.max(end, termEnd);
    }
  }
  if (end <= first) return { first: 0, end: Math.min(WINDOW_UNIT_WORDS, wordsPerPlane) };
  return { first: Math.floor(first / WINDOW_UNIT_WORDS) * WINDOW_UNIT_WORDS, end: Math.min(wordsPerPlane, Math.ceil(end / WINDOW_UNIT_WORDS) * WINDOW_UNIT_WORDS) };
}

/** The part of `slab` within `window` as a slab of its own, or null when they do not meet. */
function slabPart(slab: U8Slab, window: { readonly first: number; readonly end: number }): U8Slab | null {
  const wordFirst = Math.max(slab.wordFirst, window.first);
  const wordEnd = Math.min(slab.wordFirst + slab.numWords, window.end);
  if (wordEnd <= wordFirst) return null;
  return { wordFirst, numWords: wordEnd - wordFirst, rowBytes: 32 * (wordEnd - wordFirst) };
}
