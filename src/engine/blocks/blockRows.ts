// Filling row ranges of a rank's block from its source — the synthetic problems of SPEC §4 or the slab of a packed
// vector file — as planes: the work that blockBuild.ts gives its block workers (or the main thread, for small
// blocks) chunk by chunk. Rows are generated or read as packed codes and packed into planes; the random problem's
// rows go straight to planes (randomPlaneRows.ts) where the host is little-endian.
//
// The block worker threads load this file: it imports core, io (for the packed-file reader) and types only (the native
// packing is handed in by the thread, which loads it from mgemm).
import { AnalyticProblem, fillRandomProblemRowPacked } from '../../core/syntheticProblems.js';
import { packedVectorSlabOf, readPackedVectorSlab } from '../../io/index.js';
import type { ProblemSource } from '../run/jobSpec.js';
import { maskPlaneFieldRanges, packRowPlanes, planePackingTable, planeWordSegments, slabPlaneWordRanges } from './planePacking.js';
import { allocatePlaneWalk, fillPlaneWalk, PLANE_BYTES_ARE_FIELD_GROUPS, randomPlaneRowFiller, type SharedPlaneWalk } from './randomPlaneRows.js';
import type { PlaneLayout } from '../../analyses/index.js';
import type { NativeCodePlanes } from '../../mgemm/index.js';
import type { SlabShape } from './vectorBlock.js';
import { realRowFiller } from './realRows.js';

/**
 * A block being built: plain data (typed arrays over SharedArrayBuffers when workers share it), so it can be
 * posted to a worker as is. Rows are the block's local vector rows `[0, shape.numVectorReal)`.
 */
export interface BlockFill {
  readonly source: ProblemSource;
  readonly numVector: number;
  readonly numField: number;
  readonly layout: PlaneLayout;
  readonly shape: SlabShape;
  /** The block's plane words: row r, plane p starts at `(r·numPlanes + p)·wordsPerPlane` (contract.ts). */
  readonly words: Uint32Array;
  readonly wordsPerPlane: number;
}

/**
 * What every block worker of a block gets (its `workerData`): the block, and its rows cut into chunks of
 * `chunkRows` that workers claim in order from the shared counter `nextChunk` (element 0), reporting each
 * chunk they finish to the main thread.
 */
export interface BlockChunksTask {
  readonly fill: BlockFill;
  readonly tables: SharedRowTables;
  readonly chunkRows: number;
  readonly numChunks: number;
  readonly nextChunk: Int32Array;
  /**
   * A memory source's state (jobSpec.ts) when the workers start before its rows are final: each waits for them before
   * its first chunk (MEMORY_ROWS_*); null when they are final already.
   */
  readonly rowsFinal: Int32Array | null;
}

/** The states of a memory source (jobSpec.ts), as io's SAMPLE_ROWS_PENDING and SAMPLE_ROWS_READY. */
export const MEMORY_ROWS_PENDING = 0;
export const MEMORY_ROWS_FINAL = 1;

/** Resolves once a memory source's rows are final, without holding this thread. @throws Error when they never will be. */
export async function memoryRowsFinal(state: Int32Array): Promise<void> {
  for (;;) {
    const now = Atomics.load(state, 0);
    if (now === MEMORY_ROWS_FINAL) return;
    if (now !== MEMORY_ROWS_PENDING) throw new Error('the input in memory was not completed (its reader failed)');
    // Atomics.waitAsync (Node ≥ 16; not in the ES2022 lib's types).
    const waitAsync = (Atomics as unknown as AtomicsWaitAsync).waitAsync;
    const wait = waitAsync(state, 0, MEMORY_ROWS_PENDING);
    if (wait.async) await wait.value;
  }
}

interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number): { readonly async: false; readonly value: string } | { readonly async: true; readonly value: Promise<string> };
}

/** Blocks the calling worker thread until a memory source's rows are final. @throws Error when they never will be. */
export function waitUntilRowsFinal(state: Int32Array): void {
  while (Atomics.load(state, 0) === MEMORY_ROWS_PENDING) Atomics.wait(state, 0, MEMORY_ROWS_PENDING);
  if (Atomics.load(state, 0) !== MEMORY_ROWS_FINAL) throw new Error('the input in memory was not completed (its reader failed)');
}

/**
 * Tables that every row filler of a block reads, in shared memory, made once by the thread that starts the build
 * (fillRowTables) while the others start: the random problem's plane tables (little-endian hosts); null for
 * sources that need none shared (each filler builds its own small ones).
 */
export type SharedRowTables = SharedPlaneWalk | null;

/** The shared tables of `fill`'s rows, not filled yet (null when it needs none). */
export function allocateRowTables(fill: BlockFill): SharedRowTables {
  const real = fill.layout.realValues ?? null;
  return real === null && fill.source.kind === 'random' && PLANE_BYTES_ARE_FIELD_GROUPS ? allocatePlaneWalk(fill.layout) : null;
}

/** Fills `tables` (from allocateRowTables(fill)); row fillers waiting for them go on. */
export function fillRowTables(tables: SharedRowTables, fill: BlockFill): void {
  if (tables !== null) fillPlaneWalk(tables, fill.layout);
}

/** How a row filler packs codes into planes. */
export interface RowFillerOptions {
  /** The native addon's packing (mgemm loadNativeCodePlanes), for a thread that has it loaded; absent or null: in JS. */
  readonly nativePacking?: NativeCodePlanes | null;
}

/**
 * A writer of rows `[rowFirst, rowEnd)` of `fill`, its own tables built once, the shared `tables` waited for.
 * Each row depends only on its global vector index and the slab's global fields, so any split of the rows gives
 * the same block.
 */
export function blockRowFiller(
  fill: BlockFill, tables: SharedRowTables, options: RowFillerOptions = {},
): (rowFirst: number, rowEnd: number) => void {
  const real = fill.layout.realValues ?? null;
  if (real !== null) return realRowFiller(fill, real);
  const fillRows = codeRowFiller(fill, tables, options.nativePacking ?? null);
  if ((fill.layout.planeFieldRanges ?? null) === null) return fillRows;
  const { shape, layout } = fill;
  const target = { words: fill.words, numPlanes: layout.numPlanes, wordsPerPlane: fill.wordsPerPlane };
  return (rowFirst, rowEnd) => {
    fillRows(rowFirst, rowEnd);
    maskPlaneFieldRanges(layout, shape.fieldFirst, shape.numFieldLocal, target, rowFirst, rowEnd);
  };
}

/** The row writer of a block of 2-bit codes (before any plane field ranges are applied). */
function codeRowFiller(fill: BlockFill, tables: SharedRowTables, nativePacking: NativeCodePlanes | null): (rowFirst: number, rowEnd: number) => void {
  // The random problem's planes are copied from tables along its randomizer's walk (no codes to pack).
  if (tables !== null) return randomPlaneRowFiller(fill, tables);
  const { shape, layout } = fill;
  const numField = shape.numFieldLocal;
  const numPlanes = layout.numPlanes;
  const bytesPerRow = Math.ceil(numField / 4);
  const packedRows = packedRowsSource(fill);
  // Natively every word of every plane, planes with field ranges too (blockRowFiller masks outside them after): its
  // bit operations cost less than the JavaScript path's skipping, and no table is built.
  if (nativePacking !== null) {
    return (rowFirst, rowEnd) => nativePacking.packCodeRows(
      { packed: packedRows(rowFirst, rowEnd), src: 0, bytesPerRow, numRows: rowEnd - rowFirst, numField }, layout.bitsOfCode,
      { words: fill.words, rowBase: rowFirst * numPlanes * fill.wordsPerPlane, numPlanes, wordsPerPlane: fill.wordsPerPlane },
    );
  }
  const table = planePackingTable(layout);
  // Planes with field ranges are packed only within them (blockRowFiller masks the rest).
  const ranges = slabPlaneWordRanges(layout, shape.fieldFirst, numField);
  const segments = ranges === null ? undefined : planeWordSegments(ranges, numPlanes, fill.wordsPerPlane);
  return (rowFirst, rowEnd) => {
    const packed = packedRows(rowFirst, rowEnd);
    for (let r = rowFirst; r < rowEnd; r++) {
      packRowPlanes(table, packed, (r - rowFirst) * bytesPerRow, numField, {
        words: fill.words, rowBase: r * numPlanes * fill.wordsPerPlane, numPlanes, wordsPerPlane: fill.wordsPerPlane, segments,
      });
    }
  };
}

/** Packed codes (SPEC §1 bytes, `ceil(numFieldLocal/4)` per row) of rows `[rowFirst, rowEnd)` on the slab's fields. */
function packedRowsSource(fill: BlockFill): (rowFirst: number, rowEnd: number) => Uint8Array {
  const { source, shape } = fill;
  const { vectorFirst, fieldFirst, numFieldLocal } = shape;
  // A worker gets its fill as plain data: check what the types cannot.
  switch (source.kind) {
    case 'file':
      // One positioned read per chunk (readPackedVectorSlab re-packs the slab's fields).
      return (rowFirst, rowEnd) => readPackedVectorSlab(source.path, fill.numField, vectorFirst + rowFirst, rowEnd - rowFirst, fieldFirst, numFieldLocal);
    case 'memory':
      // Final before a chunk is filled (buildOwnPlanes or the block workers wait for them).
      return (rowFirst, rowEnd) => packedVectorSlabOf(source.packed, fill.numField, vectorFirst + rowFirst, rowEnd - rowFirst, fieldFirst, numFieldLocal);
    case 'random':
      return syntheticRows(numFieldLocal, (v, out, at) => fillRandomProblemRowPacked(v, fieldFirst, fill.numField, numFieldLocal, out, at), vectorFirst);
    case 'analytic': {
      const problem = new AnalyticProblem(fill.numVector, fill.numField);
      const groups = problem.groupsOfFields(fieldFirst, numFieldLocal);
      return syntheticRows(numFieldLocal, (v, out, at) => problem.fillRowPacked(v, groups, out, at), vectorFirst);
    }
    default:
      throw new Error(`unknown block source '${String((source as { kind: unknown }).kind)}'`);
  }
}

/** Rows of a synthetic problem, generated by `fillRow(v, out, at)` for global vector v into a reused buffer. */
function syntheticRows(
  numFieldLocal: number, fillRow: (v: number, out: Uint8Array, at: number) => void, vectorFirst: number,
): (rowFirst: number, rowEnd: number) => Uint8Array {
  const bytesPerRow = Math.ceil(numFieldLocal / 4);
  let buffer = new Uint8Array(0);
  return (rowFirst, rowEnd) => {
    const bytes = (rowEnd - rowFirst) * bytesPerRow;
    if (buffer.length < bytes) buffer = new Uint8Array(bytes);
    for (let r = rowFirst; r < rowEnd; r++) fillRow(vectorFirst + r, buffer, (r - rowFirst) * bytesPerRow);
    return buffer;
  };
}
