// The own block of a GPU run held as the code rows in memory (PlaneMatrix.codeRows), or as the .bed records they are
// transposed from (codeRecords): the kernel set builds the planes where it keeps them, so the host packs nothing and
// moves half the bytes of four planes. Only a rank whose block
// nothing on the host reads may take it (rankRun.ts ownPlanesOnDevice); `hostPlanesOf` packs the words after all for a
// host finalize that turns out to read them.
import { planeWordsFor, type PlaneCodeRows, type PlaneMatrix } from '../../mgemm/index.js';
import type { PlaneLayout, VectorBlockView } from '../../analyses/index.js';
import { readBedRecordsInto } from '../../io/index.js';
import type { ProblemSource } from '../run/jobSpec.js';
import { MEMORY_ROWS_FINAL, memoryRowsFinal } from './blockRows.js';
import { packRowPlanes, planePackingTable } from './planePacking.js';
import type { SlabShape } from './vectorBlock.js';

type MemorySource = Extract<ProblemSource, { kind: 'memory' }>;

/**
 * Whether a slab of a memory source can be held as code rows: the whole field range (code rows start at field 0), and a
 * layout of 2-bit codes whose planes cover every field (no ranges to clear, no real values).
 */
export function codeRowsCanHold(layout: PlaneLayout, shape: SlabShape, numField: number): boolean {
  return shape.fieldFirst === 0 && shape.numFieldLocal === numField && (layout.realValues ?? null) === null
    && (layout.planeFieldRanges ?? []).every((range) => range === null);
}

/**
 * The slab's planes as the memory source's code rows (their words empty; see PlaneMatrix.codeRows) or, when the source
 * says which .bed records its rows are transposed from, as those records (PlaneMatrix.codeRecords: the kernel set reads
 * the .bed itself and need not wait for the transposition, which goes on for the missing calls and the rows' hash).
 */
export function codeRowPlanes(layout: PlaneLayout, shape: SlabShape, memory: MemorySource, numField: number): PlaneMatrix {
  if (!codeRowsCanHold(layout, shape, numField)) throw new Error('code rows hold whole-field slabs of 2-bit layouts only');
  const bytesPerRow = Math.ceil(numField / 4);
  const fromRows: PlaneMatrix = {
    numVectors: shape.numVectorLocal, numPlanes: layout.numPlanes, wordsPerPlane: planeWordsFor(numField), words: new Uint32Array(0),
    codeRows: {
      bytes: memory.packed.subarray(shape.vectorFirst * bytesPerRow, (shape.vectorFirst + shape.numVectorReal) * bytesPerRow),
      bytesPerRow, numRowsReal: shape.numVectorReal, numField, bitsOfCode: layout.bitsOfCode,
    },
  };
  const bed = memory.bedRecords ?? null;
  if (bed === null || bed.snpIndices.length !== numField || bed.numSample < shape.vectorFirst + shape.numVectorReal) return fromRows;
  const fromRecords: PlaneMatrix = {
    numVectors: fromRows.numVectors, numPlanes: fromRows.numPlanes, wordsPerPlane: fromRows.wordsPerPlane, words: fromRows.words,
    codeRecords: {
      numField, bytesPerRecord: Math.ceil(bed.numSample / 4), vectorFirst: shape.vectorFirst, numRowsReal: shape.numVectorReal,
      // A .bed's code is the NOT of SPEC §1's.
      bitsOfCode: [3, 2, 1, 0].map((code) => layout.bitsOfCode[code]),
      readRecords: (into, first, count) => readBedRecordsInto(bed, into, { first, count, stride: 4 * Math.ceil(bed.numSample / 16) }),
    },
  };
  rowsOfRecords.set(fromRecords, { rows: fromRows, state: memory.state });
  return fromRecords;
}

/** The code rows a records matrix's vectors are also transposed into, and the state that says when they are final. */
const rowsOfRecords = new WeakMap<PlaneMatrix, { readonly rows: PlaneMatrix; readonly state: Int32Array }>();

/** Host words of matrices held as code rows, packed once each. */
const packedOnHost = new WeakMap<PlaneMatrix, PlaneMatrix>();

/** `planes` with their words on the host: packed from its code rows (once, on this thread) when it is held as them, else itself. */
export function hostPlanesOf(planes: PlaneMatrix): PlaneMatrix {
  const transposed = rowsOfRecords.get(planes);
  if (transposed !== undefined) {
    if (Atomics.load(transposed.state, 0) !== MEMORY_ROWS_FINAL) throw new Error('planes of .bed records asked for on the host before hostPlanesReady');
    return hostPlanesOf(transposed.rows);
  }
  const rows = planes.codeRows ?? null;
  if (rows === null) return planes;
  let packed = packedOnHost.get(planes);
  if (packed === undefined) {
    packed = packCodeRows(planes, rows);
    packedOnHost.set(planes, packed);
  }
  return packed;
}

/**
 * Resolves once hostPlanesOf can give the planes of `planes` (a records matrix: once its rows in memory are final, which
 * the main thread itself marks, so a host finalize waits here rather than block the thread).
 */
export async function hostPlanesReady(planes: PlaneMatrix): Promise<void> {
  const transposed = rowsOfRecords.get(planes);
  if (transposed !== undefined) await memoryRowsFinal(transposed.state);
}

/** A pair block whose rows' and columns' planes have their words on the host (hostPlanesOf). */
export function withHostPlanes<B extends { readonly rows: VectorBlockView; readonly cols: VectorBlockView }>(block: B): B {
  const hostRows = hostPlanesOf(block.rows.planes);
  const hostCols = hostPlanesOf(block.cols.planes);
  if (hostRows === block.rows.planes && hostCols === block.cols.planes) return block;
  return { ...block, rows: { ...block.rows, planes: hostRows }, cols: { ...block.cols, planes: hostCols } };
}

function packCodeRows(planes: PlaneMatrix, rows: PlaneCodeRows): PlaneMatrix {
  const { numVectors, numPlanes, wordsPerPlane } = planes;
  const words = new Uint32Array(new SharedArrayBuffer(numVectors * numPlanes * wordsPerPlane * 4));
  const table = planePackingTable({ numPlanes, countPlanes: [], maskPlane: null, bitsOfCode: rows.bitsOfCode });
  for (let r = 0; r < rows.numRowsReal; r++) {
    packRowPlanes(table, rows.bytes, r * rows.bytesPerRow, rows.numField, { words, rowBase: r * numPlanes * wordsPerPlane, numPlanes, wordsPerPlane });
  }
  return { numVectors, numPlanes, wordsPerPlane, words };
}
