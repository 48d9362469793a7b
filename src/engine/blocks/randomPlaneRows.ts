// Rows of the `random` problem (SPEC §4) written straight into bit planes. Along a row, whole groups of 8 fields
// are consecutive positions of the inner randomizer's walk (syntheticProblems.ts packedBytesAlongWalk), so one
// plane's bytes of a row are a run of that plane's table along the walk: a copy per plane and row, no packing.
// The block workers load this file (through blockRows.ts): core and types only.
import {
  copyAlongWalk, fillRandomProblemRow, packedBytesAlongWalk, RANDOM_WALK_LENGTH, randomRowWalkStart,
} from '../../core/syntheticProblems.js';
import type { BlockFill } from './blockRows.js';
import { planePackingTable } from './planePacking.js';
import type { PlaneLayout } from '../../analyses/index.js';

/**
 * Whether typed arrays are little-endian here: then byte g of a plane row is the plane's bits of fields
 * 8g … 8g + 7 (word g/4, bits 8·(g mod 4) up), which is what copying bytes relies on.
 */
export const PLANE_BYTES_ARE_FIELD_GROUPS = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * `table[p·L + k]` (L = RANDOM_WALK_LENGTH): plane p's bits of the 8 fields at position k of the walk, bit j for
 * field j (L bytes per plane). Made once per block in shared memory: the block workers start while the main thread
 * fills it, and wait for it: filling it is cold code, which one thread runs once instead of every worker.
 */
export interface SharedPlaneWalk {
  readonly table: Uint8Array;
  /** Element 0: FILLING, READY or FAILED. */
  readonly state: Int32Array;
}

const FILLING = 0;
const READY = 1;
const FAILED = 2;

/** An unfilled SharedPlaneWalk for `layout`, to hand to block workers before fillPlaneWalk. */
export function allocatePlaneWalk(layout: PlaneLayout): SharedPlaneWalk {
  return {
    table: new Uint8Array(new SharedArrayBuffer(layout.numPlanes * RANDOM_WALK_LENGTH)),
    state: new Int32Array(new SharedArrayBuffer(4)),
  };
}

/** Fills `walk` for `layout` from the walk's packed codes and the layout's plane packing table; wakes its waiters. */
export function fillPlaneWalk(walk: SharedPlaneWalk, layout: PlaneLayout): void {
  let state = FAILED;
  try {
    const packed = packedBytesAlongWalk();
    const packing = planePackingTable(layout);
    for (let p = 0; p < layout.numPlanes; p++) {
      const packingOfPlane = packing.subarray(p << 16, (p + 1) << 16);
      const out = walk.table.subarray(p * RANDOM_WALK_LENGTH, (p + 1) * RANDOM_WALK_LENGTH);
      for (let k = 0; k < RANDOM_WALK_LENGTH; k++) out[k] = packingOfPlane[packed[2 * k] | (packed[2 * k + 1] << 8)];
    }
    state = READY;
  } finally {
    // A waiting worker must not wait forever when this thread fails.
    Atomics.store(walk.state, 0, state);
    Atomics.notify(walk.state, 0);
  }
}

/** The table of `walk`, once filled (blocks this thread until then). */
function filledPlaneWalk(walk: SharedPlaneWalk): Uint8Array {
  while (Atomics.load(walk.state, 0) === FILLING) Atomics.wait(walk.state, 0, FILLING);
  if (Atomics.load(walk.state, 0) !== READY) throw new Error('the random problem\'s plane tables were not built');
  return walk.table;
}

/**
 * A writer of rows `[rowFirst, rowEnd)` of `fill` (a block of the random problem) from `walk` (filled for
 * fill's layout, or being filled by another thread), equal to packing the rows'
 * codes (fillRandomProblemRowPacked, packRowPlanes). Fields past the slab are cleared in the last used word of
 * each plane; words past it (alignment padding) are left as they are (zero in a fresh matrix).
 * Needs PLANE_BYTES_ARE_FIELD_GROUPS.
 */
export function randomPlaneRowFiller(fill: BlockFill, walk: SharedPlaneWalk): (rowFirst: number, rowEnd: number) => void {
  if (!PLANE_BYTES_ARE_FIELD_GROUPS) throw new Error('randomPlaneRowFiller needs a little-endian host');
  const { shape, layout, numField, wordsPerPlane } = fill;
  const { vectorFirst, fieldFirst, numFieldLocal: count } = shape;
  const numPlanes = layout.numPlanes;
  const table = filledPlaneWalk(walk);
  const planeTables = Array.from({ length: numPlanes }, (_, p) => table.subarray(p * RANDOM_WALK_LENGTH, (p + 1) * RANDOM_WALK_LENGTH));
  // One byte view per row: a view of a whole block past 4 GiB cannot be made (V8's typed arrays stop at 2^32 elements).
  const rowBytes = 4 * numPlanes * wordsPerPlane;
  const numGroups = count >> 3;
  const tail = new Uint8Array(count - 8 * numGroups);
  const usedBytes = 4 * Math.ceil(count / 32);
  return (rowFirst, rowEnd) => {
    for (let r = rowFirst; r < rowEnd; r++) {
      const row = new Uint8Array(fill.words.buffer, fill.words.byteOffset + r * rowBytes, rowBytes);
      const v = vectorFirst + r;
      const start = randomRowWalkStart(v, fieldFirst, numField);
      if (tail.length > 0) fillRandomProblemRow(v, fieldFirst + 8 * numGroups, numField, tail);
      for (let p = 0; p < numPlanes; p++) {
        const planeByte = 4 * p * wordsPerPlane;
        copyAlongWalk(planeTables[p], 1, start, numGroups, row, planeByte);
        let end = planeByte + numGroups;
        if (tail.length > 0) {
          let byte = 0;
          for (let j = 0; j < tail.length; j++) byte |= ((layout.bitsOfCode[tail[j]] >> p) & 1) << j;
          row[end++] = byte;
        }
        row.fill(0, end, planeByte + usedBytes);
      }
    }
  };
}
