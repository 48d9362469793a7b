// GPU copies of PlaneMatrix operands, kept resident between calls and cut into row chunks that fit one
// storage binding. Operands are identified by object: the engine never changes a matrix after its first
// use, so a matrix is uploaded once and reused by every later request (LRU-evicted past a byte budget).
// A matrix can be uploaded ahead of its first request (prefetch): its chunks join the resident set, and
// evict others, only when a request asks for it, i.e. inside that request's turn. A matrix whose planes are zero
// outside word ranges (PlaneMatrix.planeWordRanges: epistasis's class planes, half zeros) crosses packed, only those
// words, and is written out whole on the device (unpackPlanesProgram.ts); one held as code rows (PlaneMatrix.codeRows)
// crosses as its codes and becomes planes there (codePlanesProgram.ts), one held as code records, a field each
// (PlaneMatrix.codeRecords: a .bed's records), likewise (codeRecordsProgram.ts).

import type { PlaneCodeRecords, PlaneCodeRows, PlaneMatrix, VectorSumsRequest } from '../../../contract.js';
import { CODE_RECORDS_WORKGROUP, codeRecordPlanesOf, createCodeRecordsProgram } from '../programs/codeRecordsProgram.js';
import { STAGING_PIECE_WORDS } from '../runtime/stagingRing.js';
import { CODE_PLANES_WORKGROUP, codePlaneRowsOf, createCodePlanesProgram } from '../programs/codePlanesProgram.js';
import { createUnpackPlanesProgram, packedPlaneRowsOf, packedRowWords, UNPACK_WORKGROUP, type PackedPlaneRows } from '../programs/unpackPlanesProgram.js';
import { foldWorkgroups, unpackedRowsPerPiece, type Dispatch, type WebgpuRunner } from '../runtime/webgpuRunner.js';

/** Rows [firstRow, firstRow + numRows) of a matrix, in their own buffer (row 0 of the buffer is firstRow). */
export interface PlaneChunk {
  readonly firstRow: number;
  readonly numRows: number;
  readonly buffer: GPUBuffer;
}

interface Entry {
  readonly chunks: readonly PlaneChunk[];
  readonly numBytes: number;
}

/**
 * Matrices kept at most: the engine reuses a handful (own block, column blocks); operands that are new
 * on every call must not pile up (the map also keeps their host words alive).
 */
const MAX_RESIDENT_MATRICES = 8;

/** Resolves once rows `[0, rowEnd)` of a matrix being written are final: the contract's own type. */
type RowsReady = NonNullable<VectorSumsRequest['rowsReady']>;

export class ResidentPlanes {
  private readonly entries = new Map<PlaneMatrix, Entry>();
  /** Uploads started by prefetch, not yet asked for (the budget may be exceeded by them meanwhile). */
  private readonly prefetched = new Map<PlaneMatrix, Promise<PlaneChunk[]>>();
  private residentBytes = 0;
  /** Rejects when `clear` starts: prefetches waiting for rows stop waiting. */
  private cleared = rejectLater();

  /**
   * @param maxChunkBytes bytes of one chunk (at most the device's storage binding size)
   * @param budgetBytes resident bytes beyond which the least recently used matrices are freed
   */
  constructor(private readonly runner: WebgpuRunner, private readonly maxChunkBytes: number, private readonly budgetBytes: number) {}

  /**
   * The chunks of `matrix`, uploading it on first use (through the runner's staging ring: reused staging memory
   * is several times faster than buffers mapped at creation). Matrices in `pinned` are never evicted by this call.
   * A matrix still being written comes with `rowsReady` (contract.ts VectorSumsRequest): each piece of it is
   * copied once its rows are final.
   * Callers hold the kernel set's turn, so no other request uploads or evicts meanwhile.
   */
  async chunksOf(matrix: PlaneMatrix, pinned: readonly PlaneMatrix[], rowsReady?: RowsReady): Promise<readonly PlaneChunk[]> {
    const found = this.entries.get(matrix);
    if (found !== undefined) {
      // Re-insert: Map order is the LRU order.
      this.entries.delete(matrix);
      this.entries.set(matrix, found);
      return found.chunks;
    }
    const numBytes = matrix.numVectors * matrix.numPlanes * matrix.wordsPerPlane * 4;
    const early = this.prefetched.get(matrix);
    this.prefetched.delete(matrix);
    this.evictFor(numBytes, pinned);
    const chunks = await (early ?? this.upload(matrix, rowsReady));
    this.entries.set(matrix, { chunks, numBytes });
    this.residentBytes += numBytes;
    return chunks;
  }

  /**
   * Starts uploading `matrix` ahead of the request that will use it (e.g. a block received while the last one
   * computes) and returns at once; an upload error surfaces at that request. A matrix still arriving comes with
   * `rowsReady`: its pieces are copied as their rows arrive (the upload holds the staging ring meanwhile), and
   * `clear` ends the wait for rows that may never come.
   */
  prefetch(matrix: PlaneMatrix, rowsReady?: RowsReady): void {
    if (this.entries.has(matrix) || this.prefetched.has(matrix)) return;
    const untilCleared = rowsReady === undefined ? undefined
      : (rowEnd: number) => Promise.race([rowsReady(rowEnd), this.cleared.promise]);
    const chunks = this.upload(matrix, untilCleared);
    chunks.catch(() => undefined);
    this.prefetched.set(matrix, chunks);
  }

  private async upload(matrix: PlaneMatrix, rowsReady?: RowsReady): Promise<PlaneChunk[]> {
    const rowWords = matrix.numPlanes * matrix.wordsPerPlane;
    const rowsPerChunk = Math.floor(this.maxChunkBytes / (rowWords * 4));
    if (rowsPerChunk < 1) {
      throw new RangeError(`one vector's planes (${rowWords * 4} bytes) exceed the GPU's storage binding size (${this.maxChunkBytes} bytes)`);
    }
    const packed = packedRowsOf(matrix);
    const codeRows = matrix.codeRows ?? null;
    const codeRecords = matrix.codeRecords ?? null;
    const chunks: PlaneChunk[] = [];
    for (let firstRow = 0; firstRow < Math.max(1, matrix.numVectors); firstRow += rowsPerChunk) {
      const numRows = Math.min(rowsPerChunk, matrix.numVectors - firstRow);
      let buffer: GPUBuffer;
      if (codeRecords !== null) {
        buffer = await this.uploadCodeRecords(matrix, codeRecords, { firstRow, numRows });
      } else if (codeRows !== null) {
        buffer = await this.uploadCodeRows(matrix, codeRows, { firstRow, numRows }, rowsReady);
      } else if (packed === null || numRows === 0) {
        const wordsReady = rowsReady === undefined ? undefined : (wordEnd: number) => rowsReady(firstRow + Math.ceil(wordEnd / rowWords));
        buffer = await this.runner.createStorageBufferStaged(matrix.words.subarray(firstRow * rowWords, (firstRow + numRows) * rowWords), { readBack: false, wordsReady });
      } else {
        buffer = await this.runner.createStorageBufferUnpacked({
          numRows, rowWords, packedRowWords: packedRowWords(packed), readBack: false,
          packRows: (into, rowFirst, count) => packRows(matrix, packed, firstRow + rowFirst, count, into),
          unpack: (source, target, rowFirst, count) => this.unpackDispatch(packed, { source, target, rowFirst, numRows: count }),
          rowsReady: rowsReady === undefined ? undefined : (rowEnd) => rowsReady(firstRow + rowEnd),
        });
      }
      chunks.push({ firstRow, numRows, buffer });
    }
    return chunks;
  }

  /** Rows `[firstRow, firstRow + numRows)` of a matrix held as code rows, crossing as codes and written out as planes. */
  private uploadCodeRows(
    matrix: PlaneMatrix, codeRows: PlaneCodeRows, { firstRow, numRows }: { firstRow: number; numRows: number }, rowsReady?: RowsReady,
  ): Promise<GPUBuffer> {
    const shape = codePlaneRowsOf(codeRows, matrix.numPlanes, matrix.wordsPerPlane);
    const { bytes, bytesPerRow, numRowsReal } = codeRows;
    const rowWords = matrix.numPlanes * matrix.wordsPerPlane;
    if (unpackedRowsPerPiece(shape.codeRowWords, rowWords) < 1) {
      throw new RangeError(`a code row of ${bytesPerRow} bytes (planes of ${rowWords} words) exceeds a staging piece`);
    }
    // Compiled while the rows may still be written (a first piece would otherwise wait for it).
    const program = createCodePlanesProgram(shape);
    this.runner.compileStart([program]);
    return this.runner.createStorageBufferUnpacked({
      numRows, rowWords, packedRowWords: shape.codeRowWords, readBack: false,
      // Row by row at word boundaries; rows past the real ones cross as whatever the piece holds (written zero).
      packRows: (into, rowFirst, count) => {
        const intoBytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
        const realEnd = Math.min(firstRow + rowFirst + count, numRowsReal);
        for (let r = firstRow + rowFirst, at = 0; r < realEnd; r++, at += 4 * shape.codeRowWords) {
          intoBytes.set(bytes.subarray(r * bytesPerRow, (r + 1) * bytesPerRow), at);
        }
      },
      unpack: (source, target, rowFirst, count) => {
        const numRealRows = Math.max(0, Math.min(count, numRowsReal - (firstRow + rowFirst)));
        const workgroups = foldWorkgroups(Math.ceil((count * matrix.wordsPerPlane) / CODE_PLANES_WORKGROUP),
          this.runner.capabilities.maxComputeWorkgroupsPerDimension);
        return {
          program, storage: [source, target],
          uniforms: { rowFirst, numRows: count, numRealRows, numWorkgroupsX: workgroups[0] }, workgroups,
        };
      },
      rowsReady: rowsReady === undefined ? undefined : (rowEnd) => rowsReady(firstRow + rowEnd),
    });
  }

  /**
   * Rows `[firstRow, firstRow + numRows)` of a matrix held as code records: every record crosses (read into the staging
   * pieces, a multiple of 32 records each), and each piece's fields are written into the rows' planes. Each chunk of
   * rows reads the records again: one chunk holds the rows of any block up to the binding size.
   */
  private async uploadCodeRecords(
    matrix: PlaneMatrix, records: PlaneCodeRecords, { firstRow, numRows }: { firstRow: number; numRows: number },
  ): Promise<GPUBuffer> {
    const shape = codeRecordPlanesOf(records, matrix.numPlanes, matrix.wordsPerPlane);
    const recordsPerPiece = 32 * Math.floor(STAGING_PIECE_WORDS / (32 * shape.recordWords));
    if (recordsPerPiece < 1) throw new RangeError(`32 code records of ${records.bytesPerRecord} bytes exceed a staging piece`);
    const program = createCodeRecordsProgram(shape);
    this.runner.compileStart([program]);
    const target = this.runner.createStorageBuffer(Math.max(16, numRows * matrix.numPlanes * matrix.wordsPerPlane * 4), { readBack: false });
    const numRealRows = Math.max(0, Math.min(numRows, records.numRowsReal - firstRow));
    await this.runner.uploadThroughDispatches({
      numWords: records.numField * shape.recordWords, pieceWords: recordsPerPiece * shape.recordWords, target,
      fillPiece: (into, first) => records.readRecords(new Uint8Array(into.buffer, into.byteOffset, into.byteLength),
        first / shape.recordWords, into.length / shape.recordWords),
      dispatchesOf: (piece, first, count) => {
        const numFields = count / shape.recordWords;
        const workgroups = foldWorkgroups(Math.ceil((numRows * Math.ceil(numFields / 32)) / CODE_RECORDS_WORKGROUP),
          this.runner.capabilities.maxComputeWorkgroupsPerDimension);
        return [{
          program, storage: [piece, target], workgroups,
          uniforms: {
            vectorFirst: records.vectorFirst + firstRow, numRows, numRealRows, fieldFirst: first / shape.recordWords, numFields,
            numWorkgroupsX: workgroups[0],
          },
        }];
      },
    });
    return target;
  }

  /** The dispatch that writes `numRows` packed rows of `source` out whole into `target` from its row `rowFirst`. */
  private unpackDispatch(
    packed: PackedPlaneRows, { source, target, rowFirst, numRows }: { source: GPUBuffer; target: GPUBuffer; rowFirst: number; numRows: number },
  ): Dispatch {
    const workgroups = foldWorkgroups(Math.ceil((numRows * packed.numPlanes * packed.wordsPerPlane) / UNPACK_WORKGROUP),
      this.runner.capabilities.maxComputeWorkgroupsPerDimension);
    return {
      program: createUnpackPlanesProgram(packed), storage: [source, target], uniforms: { rowFirst, numRows, numWorkgroupsX: workgroups[0] }, workgroups,
    };
  }

  private evictFor(numBytes: number, pinned: readonly PlaneMatrix[]): void {
    for (const [matrix, entry] of this.entries) {
      if (this.residentBytes + numBytes <= this.budgetBytes && this.entries.size < MAX_RESIDENT_MATRICES) return;
      if (pinned.includes(matrix)) continue;
      // Requests submitted earlier may still read it (pinned matrices are the ones this request uses).
      for (const chunk of entry.chunks) this.runner.destroyWhenIdle(chunk.buffer);
      this.entries.delete(matrix);
      this.residentBytes -= entry.numBytes;
    }
  }

  /** Frees every resident buffer, prefetched ones once their uploads have settled (or stopped waiting for rows). */
  async clear(): Promise<void> {
    this.cleared.reject(new Error('the kernel set was closed before the prefetched planes arrived'));
    this.cleared = rejectLater();
    for (const early of this.prefetched.values()) {
      for (const chunk of await early.catch(() => [])) chunk.buffer.destroy();
    }
    this.prefetched.clear();
    for (const entry of this.entries.values()) for (const chunk of entry.chunks) chunk.buffer.destroy();
    this.entries.clear();
    this.residentBytes = 0;
  }
}

/** The packed form of a matrix's rows (packedPlaneRowsOf), or null also when a packed row exceeds a staging piece. */
function packedRowsOf(matrix: PlaneMatrix): PackedPlaneRows | null {
  const packed = packedPlaneRowsOf(matrix);
  if (packed === null || unpackedRowsPerPiece(packedRowWords(packed), matrix.numPlanes * matrix.wordsPerPlane) < 1) return null;
  return packed;
}

/** Packs rows `[rowFirst, rowFirst + numRows)` of `matrix`: per row, each plane's range of words, into `into`. */
function packRows(matrix: PlaneMatrix, packed: PackedPlaneRows, rowFirst: number, numRows: number, into: Uint32Array): void {
  const { words, wordsPerPlane } = matrix;
  const rowWords = packed.numPlanes * wordsPerPlane;
  let out = 0;
  for (let r = rowFirst; r < rowFirst + numRows; r++) {
    for (const [p, [first, end]] of packed.ranges.entries()) {
      const planeBase = r * rowWords + p * wordsPerPlane;
      into.set(words.subarray(planeBase + first, planeBase + end), out);
      out += end - first;
    }
  }
}

/** A promise rejected only when `reject` is called (never an unhandled rejection). */
function rejectLater(): { readonly promise: Promise<never>; readonly reject: (reason: Error) => void } {
  let reject: (reason: Error) => void = () => undefined;
  const promise = new Promise<never>((_, rejectPromise) => {
    reject = rejectPromise;
  });
  promise.catch(() => undefined);
  return { promise, reject };
}
