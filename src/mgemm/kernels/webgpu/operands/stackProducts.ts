// The pair-product dispatches of a 3-way request's stacks (sliceStacks.ts): every stack's parts go into one table,
// uploaded once per request, and each stack is built by one pairProductProgram dispatch per run of consecutive parts
// whose x rows lie in one resident chunk and whose j's in one (a single run unless a stack crosses a chunk boundary).

import type { Tally3Slice } from '../../../contract.js';
import { PAIR_PRODUCT_PART_WORDS, PAIR_PRODUCT_WORKGROUP } from '../programs/pairProductProgram.js';
import type { PlaneChunk } from './residentPlanes.js';
import type { SliceStack } from '../plan/sliceStacks.js';
import { foldWorkgroups, type Dispatch, type WebgpuRunner } from '../runtime/webgpuRunner.js';
import type { WgslProgram } from '../programs/wgslProgram.js';

/** Consecutive parts of a stack that one dispatch builds. */
interface ProductRun {
  readonly xChunk: PlaneChunk;
  readonly yChunk: PlaneChunk;
  /** Its first part in the table (counted in parts), and its parts. */
  readonly partsFirst: number;
  numParts: number;
  /** Its stack rows. */
  readonly rowFirst: number;
  numRows: number;
}

/** What the stacks' product dispatches bind and read. */
export interface StackProductsContext {
  readonly runner: WebgpuRunner;
  readonly program: WgslProgram;
  readonly slices: readonly Tally3Slice[];
  readonly xChunks: readonly PlaneChunk[];
  readonly yChunks: readonly PlaneChunk[];
  /** The stacks' products (rows of `productRowBytes`), and the parts table's buffer. */
  readonly products: GPUBuffer;
  readonly productRowBytes: number;
  readonly wordsPerPlane: number;
  /** A buffer of at least numBytes for the table (shared between requests). */
  readonly tableBuffer: (numBytes: number) => GPUBuffer;
}

/**
 * Uploads the parts table of `stacks` and returns the dispatches that build stack `s`'s products. The table's buffer
 * is shared between requests: the upload is queued after every earlier submit, which are all its readers.
 */
export function stackProductDispatches(context: StackProductsContext, stacks: readonly SliceStack[]): (stackIdx: number) => Dispatch[] {
  const { slices, xChunks, yChunks } = context;
  const table: number[] = [];
  const runsOf = stacks.map((stack) => {
    const runs: ProductRun[] = [];
    for (const part of stack.parts) {
      const slice = slices[part.sliceIdx];
      const xRow = slice.xFirst + part.sliceRowFirst;
      const xChunk = chunkOfRow(xChunks, xRow);
      const yChunk = chunkOfRow(yChunks, slice.yRow);
      const last = runs.at(-1);
      if (last !== undefined && last.xChunk === xChunk && last.yChunk === yChunk) {
        last.numParts++;
        last.numRows += part.numRows;
      } else {
        runs.push({ xChunk, yChunk, partsFirst: table.length / PAIR_PRODUCT_PART_WORDS, numParts: 1, rowFirst: part.stackRowFirst, numRows: part.numRows });
      }
      table.push(part.stackRowFirst, xRow - xChunk.firstRow, slice.yRow - yChunk.firstRow, 0);
    }
    return runs;
  });
  const tableBuffer = context.tableBuffer(table.length * 4);
  context.runner.upload(tableBuffer, Uint32Array.from(table));
  const maxGroups = context.runner.capabilities.maxComputeWorkgroupsPerDimension;
  return (stackIdx) => runsOf[stackIdx].map((run) => {
    const workgroups = foldWorkgroups(Math.ceil((run.numRows * context.productRowBytes) / 16 / PAIR_PRODUCT_WORKGROUP), maxGroups);
    return {
      program: context.program, storage: [run.xChunk.buffer, run.yChunk.buffer, context.products, tableBuffer],
      uniforms: {
        partsFirst: run.partsFirst, numParts: run.numParts, rowFirst: run.rowFirst, numRows: run.numRows,
        vec4PerPlane: context.wordsPerPlane / 4, numWorkgroupsX: workgroups[0],
      },
      workgroups,
    };
  });
}

/** The resident chunk holding `row`. */
function chunkOfRow(chunks: readonly PlaneChunk[], row: number): PlaneChunk {
  const chunk = chunks.find((c) => row >= c.firstRow && row < c.firstRow + c.numRows);
  if (chunk === undefined) throw new RangeError(`row ${row} is in no resident chunk`);
  return chunk;
}
