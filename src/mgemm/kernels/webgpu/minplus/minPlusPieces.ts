// Pure planning of a min-plus request on the GPU (programs/minPlusPrograms.ts): its outputs cut into pieces — a
// rectangle within one resident chunk of each operand — and the pieces packed into submits whose outputs fit one
// binding and one read-back, each submit a table of pieces and one dispatch per chunk combination. Also where each
// piece's sums go on the host (scatterPieceSums).
import type { PopcountGemm3Request, PopcountGemmRequest } from '../../../contract.js';
import { MIN_PLUS_TILE, PIECE2_WORDS, PIECE3_WORDS } from '../programs/minPlusPrograms.js';

/** Rows [firstRow, firstRow + numRows) of an operand held in one GPU buffer (operands/residentPlanes.ts PlaneChunk). */
export interface ChunkRows {
  readonly firstRow: number;
  readonly numRows: number;
}

/** A rectangle of a request's output whose operands each lie in one chunk. */
export interface MinPlusPiece {
  /** The chunk of each operand (A, B; or X, Y, Z): a dispatch binds one chunk per operand. */
  readonly chunks: readonly number[];
  /** The piece's first row within each operand's chunk (A, B; or X, the y row, Z). */
  readonly chunkRows: readonly number[];
  readonly numRows: number;
  readonly numCols: number;
  /** Its sums go to output `target` (2-way: 0; 3-way: the slice), row-major of row length `stride`, at (rowFirst, colFirst). */
  readonly target: number;
  readonly rowFirst: number;
  readonly colFirst: number;
  readonly stride: number;
}

/** One dispatch of a submit: pieces [pieceFirst, +numPieces) of its table, all on the same chunks. */
export interface PieceDispatch {
  readonly chunks: readonly number[];
  readonly pieceFirst: number;
  readonly numPieces: number;
  readonly numTiles: number;
}

/** One submit: its pieces (each with its place in the submit's output), their table, and its dispatches. */
export interface PieceSubmit {
  readonly pieces: readonly (MinPlusPiece & { readonly outOffset: number })[];
  readonly table: Uint32Array;
  readonly dispatches: readonly PieceDispatch[];
  /** Output words per group (the submit's output holds its groups one after another). */
  readonly groupWords: number;
}

/** The parts of [first, first + count) that lie in each chunk: [chunk index, first row, count]. */
function overlaps(chunks: readonly ChunkRows[], first: number, count: number): [number, number, number][] {
  const parts: [number, number, number][] = [];
  chunks.forEach((chunk, idx) => {
    const begin = Math.max(first, chunk.firstRow);
    const end = Math.min(first + count, chunk.firstRow + chunk.numRows);
    if (begin < end) parts.push([idx, begin, end - begin]);
  });
  return parts;
}

/** The chunk holding `row`. */
function chunkOf(chunks: readonly ChunkRows[], row: number): number {
  const idx = chunks.findIndex((c) => row >= c.firstRow && row < c.firstRow + c.numRows);
  if (idx < 0) throw new RangeError(`row ${row} is in no resident chunk`);
  return idx;
}

/** Pieces of a 2-way request; with strictUpper, pieces wholly at or below the diagonal are left out. */
export function pairPieces(request: PopcountGemmRequest, aChunks: readonly ChunkRows[], bChunks: readonly ChunkRows[]): MinPlusPiece[] {
  const pieces: MinPlusPiece[] = [];
  for (const [ia, aBegin, numRows] of overlaps(aChunks, request.aFirst, request.aCount)) {
    for (const [ib, bBegin, numCols] of overlaps(bChunks, request.bFirst, request.bCount)) {
      const rowFirst = aBegin - request.aFirst;
      const colFirst = bBegin - request.bFirst;
      if (request.strictUpper && colFirst + numCols - 1 <= rowFirst) continue;
      pieces.push({
        chunks: [ia, ib], chunkRows: [aBegin - aChunks[ia].firstRow, bBegin - bChunks[ib].firstRow], numRows, numCols,
        target: 0, rowFirst, colFirst, stride: request.bCount,
      });
    }
  }
  return pieces;
}

/** Pieces of a 3-way request: per slice, its x rows and z rows by chunk, against its y row. */
export function triplePieces(
  request: PopcountGemm3Request, chunks: { readonly x: readonly ChunkRows[]; readonly y: readonly ChunkRows[]; readonly z: readonly ChunkRows[] },
): MinPlusPiece[] {
  const pieces: MinPlusPiece[] = [];
  request.slices.forEach((slice, s) => {
    const iy = chunkOf(chunks.y, slice.yRow);
    for (const [ix, xBegin, numRows] of overlaps(chunks.x, slice.xFirst, slice.xCount)) {
      for (const [iz, zBegin, numCols] of overlaps(chunks.z, slice.zFirst, slice.zCount)) {
        pieces.push({
          chunks: [ix, iy, iz], chunkRows: [xBegin - chunks.x[ix].firstRow, slice.yRow - chunks.y[iy].firstRow, zBegin - chunks.z[iz].firstRow],
          numRows, numCols, target: s, rowFirst: xBegin - slice.xFirst, colFirst: zBegin - slice.zFirst, stride: slice.zCount,
        });
      }
    }
  });
  return pieces;
}

const tilesOf = (numRows: number, numCols: number): number => Math.ceil(numRows / MIN_PLUS_TILE) * Math.ceil(numCols / MIN_PLUS_TILE);

/** `piece` cut into bands of at most `maxWords` outputs: rows (the first operand's), columns (the last's) if a row is wider. */
function bands(piece: MinPlusPiece, maxWords: number): MinPlusPiece[] {
  const last = piece.chunkRows.length - 1;
  const columns: MinPlusPiece[] = [];
  for (let c = 0; c < piece.numCols; c += maxWords) {
    columns.push({
      ...piece, numCols: Math.min(maxWords, piece.numCols - c), colFirst: piece.colFirst + c,
      chunkRows: piece.chunkRows.map((row, operand) => (operand === last ? row + c : row)),
    });
  }
  return columns.flatMap((band) => {
    const maxRows = Math.floor(maxWords / band.numCols);
    const rows: MinPlusPiece[] = [];
    for (let r = 0; r < band.numRows; r += maxRows) {
      rows.push({
        ...band, numRows: Math.min(maxRows, band.numRows - r), rowFirst: band.rowFirst + r,
        chunkRows: band.chunkRows.map((row, operand) => (operand === 0 ? row + r : row)),
      });
    }
    return rows;
  });
}

/**
 * Pieces packed into submits of at most `maxGroupWords` output words per group (a piece larger than that is cut
 * into bands), grouped by chunks so that each submit has few dispatches. `way` fixes the table layout
 * (programs/minPlusPrograms.ts PIECE2_WORDS, PIECE3_WORDS).
 */
export function packPieces(pieces: readonly MinPlusPiece[], way: 2 | 3, maxGroupWords: number): PieceSubmit[] {
  const byChunks = [...pieces].sort((p, q) => compareChunks(p.chunks, q.chunks));
  const cut = byChunks.flatMap((piece) => bands(piece, maxGroupWords));
  const submits: PieceSubmit[] = [];
  let current: MinPlusPiece[] = [];
  let words = 0;
  const flush = (): void => {
    if (current.length > 0) submits.push(submitOf(current, way));
    current = [];
    words = 0;
  };
  for (const piece of cut) {
    const size = piece.numRows * piece.numCols;
    if (words + size > maxGroupWords) flush();
    current.push(piece);
    words += size;
  }
  flush();
  return submits;
}

function compareChunks(p: readonly number[], q: readonly number[]): number {
  for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return p[i] - q[i];
  return 0;
}

/** The table and dispatches of one submit's pieces (sorted by chunks). */
function submitOf(pieces: readonly MinPlusPiece[], way: 2 | 3): PieceSubmit {
  const pieceWords = way === 2 ? PIECE2_WORDS : PIECE3_WORDS;
  const table = new Uint32Array(Math.max(4, pieces.length * pieceWords));
  const dispatches: PieceDispatch[] = [];
  const placed: (MinPlusPiece & { outOffset: number })[] = [];
  let outOffset = 0;
  let tileFirst = 0;
  pieces.forEach((piece, idx) => {
    const last = dispatches.at(-1);
    if (last === undefined || compareChunks(last.chunks, piece.chunks) !== 0) {
      dispatches.push({ chunks: piece.chunks, pieceFirst: idx, numPieces: 0, numTiles: 0 });
      tileFirst = 0;
    }
    const dispatch = dispatches[dispatches.length - 1];
    const numTiles = tilesOf(piece.numRows, piece.numCols);
    const colTiles = Math.ceil(piece.numCols / MIN_PLUS_TILE);
    // Layouts: 2-way aRow, bRow, numRows, numCols, outOffset, colTiles, tileFirst, rowOrigin, colOrigin;
    // 3-way xRow, yRow, zRow, numRows, numCols, outOffset, colTiles, tileFirst.
    const entry = [...piece.chunkRows, piece.numRows, piece.numCols, outOffset, colTiles, tileFirst, ...(way === 2 ? [piece.rowFirst, piece.colFirst] : [])];
    table.set(entry, idx * pieceWords);
    dispatches[dispatches.length - 1] = { ...dispatch, numPieces: dispatch.numPieces + 1, numTiles: dispatch.numTiles + numTiles };
    placed.push({ ...piece, outOffset });
    tileFirst += numTiles;
    outOffset += piece.numRows * piece.numCols;
  });
  return { pieces: placed, table, dispatches, groupWords: outOffset };
}

/** Copies a submit's read-back sums (group-major) to `outputs[target][group]` where each piece's rows go. */
export function scatterPieceSums(submit: PieceSubmit, words: Uint32Array, outputs: readonly (readonly Uint32Array[])[]): void {
  for (const piece of submit.pieces) {
    outputs[piece.target].forEach((out, g) => {
      const source = g * submit.groupWords + piece.outOffset;
      if (piece.numCols === piece.stride) {
        out.set(words.subarray(source, source + piece.numRows * piece.numCols), piece.rowFirst * piece.stride);
        return;
      }
      for (let r = 0; r < piece.numRows; r++) {
        const from = source + r * piece.numCols;
        out.set(words.subarray(from, from + piece.numCols), (piece.rowFirst + r) * piece.stride + piece.colFirst);
      }
    });
  }
}
