// A rank's block of vectors: the bit planes of its field slab plus the vectors' global sums.
import { allocatePlaneMatrix, type PlaneMatrix } from '../../mgemm/index.js';
import type { PlaneLayout, VectorBlockView } from '../../analyses/index.js';
import { maskPlaneFieldRanges, slabPlaneWordRanges } from './planePacking.js';

/**
 * Vectors `[vectorFirst, vectorFirst + numVectorReal)` of one block (rows past the real ones are zero pads): the
 * block as the analyses' finalize reads it, their VectorBlockView.
 */
export type VectorBlock = VectorBlockView;

/**
 * Planes that block workers may still be writing: rows become final in order, so a kernel set can upload the
 * first rows while later ones are built. Nothing may read rows before `rowsReady` says they are final.
 */
export interface FillingPlanes {
  readonly planes: PlaneMatrix;
  /** Resolves once rows `[0, rowEnd)` hold their final words; rejects if the build fails. */
  rowsReady(rowEnd: number): Promise<void>;
  /** Settles when no thread writes the planes any more: resolves when every row is final, rejects with the first failure. */
  readonly done: Promise<void>;
}

/** The blocks a rank reads from other ranks, as they arrive (blockExchange.ts startBlockExchange). */
export interface ReceivedBlocks {
  /** Resolves when block `blockIdx` has arrived whole, with its sums; rejects if its transfer fails. */
  block(blockIdx: number): Promise<VectorBlock>;
  /**
   * Resolves once the planes of block `blockIdx` exist, their rows still arriving in order: a kernel set may move
   * the first rows while later ones come. `planes` is the object that `block` later resolves with.
   */
  arriving(blockIdx: number): Promise<FillingPlanes>;
}

/** Planes that are already final, as FillingPlanes. */
export function finishedPlanes(planes: PlaneMatrix): FillingPlanes {
  return { planes, rowsReady: () => Promise.resolve(), done: Promise.resolve() };
}

/**
 * Fills `out` with the codes of global fields `[fieldFirst, fieldFirst + out.length)` of global vector `v`.
 * Row-wise so that sources can generate or unpack a whole row at once.
 */
export type RowCodes = (v: number, fieldFirst: number, out: Uint8Array) => void;

/** Field slab of a block: global fields `[fieldFirst, fieldFirst + numFieldLocal)`. */
export interface SlabShape {
  readonly numVectorLocal: number;
  readonly vectorFirst: number;
  readonly numVectorReal: number;
  readonly fieldFirst: number;
  readonly numFieldLocal: number;
}

/**
 * Planes of a slab whose codes come row by row from `rowCodes`, a bit at a time: the plain builder that tests
 * compare the packed builders with (runs build their blocks with blockBuild.ts).
 */
export function planesFromCodes(layout: PlaneLayout, shape: SlabShape, rowCodes: RowCodes): PlaneMatrix {
  const planes: PlaneMatrix = {
    ...allocatePlaneMatrix(shape.numVectorLocal, layout.numPlanes, shape.numFieldLocal),
    planeWordRanges: slabPlaneWordRanges(layout, shape.fieldFirst, shape.numFieldLocal),
  };
  const wpp = planes.wordsPerPlane;
  const words = planes.words;
  const codes = new Uint8Array(shape.numFieldLocal);
  const numPlanes = layout.numPlanes;
  const bitsOfCode = Uint8Array.from(layout.bitsOfCode);
  for (let r = 0; r < shape.numVectorReal; r++) {
    rowCodes(shape.vectorFirst + r, shape.fieldFirst, codes);
    const base = r * numPlanes * wpp;
    for (let p = 0; p < numPlanes; p++) {
      const planeBase = base + p * wpp;
      // 32 fields at a time into one word of plane p.
      for (let w = 0, f0 = 0; f0 < codes.length; w++, f0 += 32) {
        const fEnd = Math.min(f0 + 32, codes.length);
        let word = 0;
        for (let f = f0; f < fEnd; f++) word |= ((bitsOfCode[codes[f]] >> p) & 1) << (f - f0);
        words[planeBase + w] = word;
      }
    }
  }
  maskPlaneFieldRanges(layout, shape.fieldFirst, shape.numFieldLocal, { words, numPlanes, wordsPerPlane: wpp }, 0, shape.numVectorReal);
  return planes;
}

