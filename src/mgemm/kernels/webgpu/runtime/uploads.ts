// The shapes of the runner's uploads through its staging ring (webgpuRunner.ts): plain words, rows packed and written
// out whole on the GPU, and pieces taken by dispatches into buffers made beforehand.
import type { Dispatch } from './dispatch.js';
import { STAGING_PIECE_WORDS } from './stagingRing.js';

/** How a staged upload reads its words. */
export interface StagedUploadOptions {
  /** The buffer is also read back (COPY_SRC). */
  readonly readBack: boolean;
  /** Present while the words are still being written: resolves once words `[0, wordEnd)` are final. */
  readonly wordsReady?: (wordEnd: number) => Promise<void>;
}

/** An upload of rows sent packed and written out whole on the GPU (createStorageBufferUnpacked). */
export interface UnpackedUpload {
  /** Rows, and words of each as written out whole (the buffer made holds numRows · rowWords words). */
  readonly numRows: number;
  readonly rowWords: number;
  /** Words of one packed row (at most a staging piece, STAGING_PIECE_WORDS). */
  readonly packedRowWords: number;
  /** Writes packed rows `[rowFirst, rowFirst + numRows)` one after another into `into`. */
  readonly packRows: (into: Uint32Array, rowFirst: number, numRows: number) => void;
  /** The dispatch that writes `numRows` packed rows at the start of `packed` out whole into `target` from row `rowFirst`. */
  readonly unpack: (packed: GPUBuffer, target: GPUBuffer, rowFirst: number, numRows: number) => Dispatch;
  /** Present while the rows are still being written: resolves once rows `[0, rowEnd)` are final. */
  readonly rowsReady?: (rowEnd: number) => Promise<void>;
  /** The buffer is also read back (COPY_SRC). */
  readonly readBack: boolean;
}

/** An upload taken from the staging ring by dispatches into buffers made beforehand (uploadThroughDispatches). */
export interface DispatchedUpload {
  /** Words in all, and per piece (at most a staging piece, STAGING_PIECE_WORDS). */
  readonly numWords: number;
  readonly pieceWords: number;
  /** Writes words `[first, first + into.length)` into `into`. */
  readonly fillPiece: (into: Uint32Array, first: number) => void;
  /** The dispatches that take words `[first, first + count)` from the start of `piece`. */
  readonly dispatchesOf: (piece: GPUBuffer, first: number, count: number) => Dispatch[];
  /** A buffer the dispatches write, freed when the upload fails. */
  readonly target: GPUBuffer;
}

/**
 * Rows of `packedRowWords` words (`rowWords` written out) per piece of createStorageBufferUnpacked; 0 when one row is
 * too large. A piece's unpack writes at most 8 staging pieces of words, so its thread indices stay far within u32.
 */
export function unpackedRowsPerPiece(packedRowWords: number, rowWords: number): number {
  if (packedRowWords < 1) return 0;
  return Math.min(Math.floor(STAGING_PIECE_WORDS / packedRowWords), Math.floor((8 * STAGING_PIECE_WORDS) / rowWords));
}
