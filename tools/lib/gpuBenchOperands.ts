// Operands of tools/bench-gpu: random plane matrices, the term groups the engine uses written out, and the square
// tiles a request is cut into as the engine cuts record panels.
import { allocatePlaneMatrix, type PlaneMatrix, type PopcountGemmRequest, type TermGroup } from '../../src/mgemm/index.js';

/** Term groups and plane counts the engine uses (see src/analyses/comet/cometTallies.ts), written out here. */
export const CCC_TERMS = [[0, 0], [0, 1], [1, 0], [1, 1]] as const;
export const SPARSE2: TermGroup[] = [CCC_TERMS, [[0, 2], [1, 2]], [[2, 0], [2, 1]], [[2, 2]]];
/** 3-way A planes are (i plane, j plane) pairs; dense: 4 pairs of H/L; sparse: 9 pairs of H/L/M. */
export const DENSE3: TermGroup[] = [[0, 1, 2, 3].flatMap((p) => [[p, 0], [p, 1]] as const)];
/** The (i plane, j plane) pairs those A planes stand for, pair index p·numPlanes + q. */
export const pairsOf = (numPlanes: number): (readonly [number, number])[] =>
  Array.from({ length: numPlanes * numPlanes }, (_, idx) => [Math.floor(idx / numPlanes), idx % numPlanes] as const);
export function sparse3Groups(): TermGroup[] {
  const pairIdx = (p: number, q: number): number => p * 3 + q;
  const planes = (isCount: number): number[] => (isCount ? [0, 1] : [2]);
  return [7, 6, 5, 4, 3, 2, 1, 0].map((t) => planes(t & 4).flatMap((p) => planes(t & 2).flatMap((q) => planes(t & 1).map((r) => [pairIdx(p, q), r] as const))));
}

/** Random plane words (xorshift), bits past the last field cleared as the contract requires. */
export function randomPlanes(numVectors: number, numPlanes: number, numField: number, seed: number): PlaneMatrix {
  const m = allocatePlaneMatrix(numVectors, numPlanes, numField);
  let s = seed >>> 0 || 1;
  const w = m.words;
  for (let t = 0; t < w.length; t++) { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; w[t] = s >>> 0; }
  const wpp = m.wordsPerPlane;
  for (let plane = 0; plane < numVectors * numPlanes; plane++) {
    for (let k = 0; k < wpp; k++) {
      const first = k * 32;
      const keep = numField - first;
      if (keep < 32) w[plane * wpp + k] = keep <= 0 ? 0 : w[plane * wpp + k] & ((2 ** keep - 1) >>> 0);
    }
  }
  return m;
}

/** Nests sparse CCC planes as real data has them (cometTallies.ts): H ⊆ L ⊆ M, in place. */
export function nestSparseCccPlanes(planes: PlaneMatrix): void {
  const wpp = planes.wordsPerPlane;
  for (let v = 0; v < planes.numVectors; v++) {
    const at = v * 3 * wpp;
    for (let w = 0; w < wpp; w++) {
      const mask = planes.words[at + 2 * wpp + w];
      planes.words[at + wpp + w] &= mask;
      planes.words[at + w] &= planes.words[at + wpp + w];
    }
  }
}

/** A request's rows × columns in square tiles of `side` (none below the diagonal of a strictly upper request). */
export function squareTiles(
  request: Pick<PopcountGemmRequest, 'aFirst' | 'aCount' | 'bFirst' | 'bCount' | 'strictUpper'>, side: number,
): { readonly aFirst: number; readonly aCount: number; readonly bFirst: number; readonly bCount: number }[] {
  const tiles: { readonly aFirst: number; readonly aCount: number; readonly bFirst: number; readonly bCount: number }[] = [];
  for (let row = 0; row < request.aCount; row += side) {
    for (let col = 0; col < request.bCount; col += side) {
      const aCount = Math.min(side, request.aCount - row);
      const bCount = Math.min(side, request.bCount - col);
      if (request.strictUpper && request.bFirst + col + bCount <= request.aFirst + row + 1) continue;
      tiles.push({ aFirst: request.aFirst + row, aCount, bFirst: request.bFirst + col, bCount });
    }
  }
  return tiles;
}
