// Program factories that write a 2-way request's records in key order on the device (an ordered stream
// compaction), so that they come back as the output lays them out and no host thread sorts them.
//
// The finalize (finalize2Program.ts) leaves, for each pair p of the request (row-major, p = row·numCols + col)
// with a passing entry, its pass mask (bit 2a + b) at passMasks[p] and the passing values' float32 bits at
// passValues[4p + e]. Then, over slots of PAIRS_PER_SLOT consecutive pairs:
//   1. slot counts: one thread per slot counts its passing entries;
//   2. slot offsets: one workgroup turns the counts into exclusive offsets, the total at [numSlots] and in status[0];
//   3. record writes: one thread per slot writes its records from its offset, [2i + a, 2j + b, value bits] each
//      ([i, j, value bits] for values named by pairs; mgemm/pairFinalize.ts PairRecords), and clears the masks it read: the mask buffer is all zero again after
//      every request, so the finalize only writes masks of pairs that pass (pairs it skips read as zero).
// Records go out only when the total fits `recordCapacity`; otherwise the host grows the room and submits again.

import type { WgslProgram } from '../programs/wgslProgram.js';

/** Consecutive pairs of one slot: one thread each in the count and write passes. */
export const PAIRS_PER_SLOT = 64;
/** Threads per workgroup of the three programs (the offsets program is one workgroup). */
export const PAIR_RECORDS_WORKGROUP = 256;

/** The slot of this invocation in a 1-D grid folded into x and y (`dispatchX` workgroups per row). */
const SLOT_OF_INVOCATION = `let s = (wg.y * u.dispatchX + wg.x) * WG + li;
  if (s >= u.numSlots) { return; }
  let first = s * SLOT;
  let end = min(first + SLOT, u.numPairs);`;

const DECLARATIONS = `const WG = ${PAIR_RECORDS_WORKGROUP}u;
const SLOT = ${PAIRS_PER_SLOT}u;`;

/** Pass 1: slotOffsets[s] = passing entries of slot s. */
export function createPairSlotCountsProgram(): WgslProgram {
  return {
    cacheKey: 'pairRecords/slotCounts',
    workgroupSize: [PAIR_RECORDS_WORKGROUP, 1],
    storage: [
      { name: 'passMasks', access: 'read', elementType: 'u32' },
      { name: 'slotOffsets', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [{ name: 'numPairs', type: 'u32' }, { name: 'numSlots', type: 'u32' }, { name: 'dispatchX', type: 'u32' }],
    extensions: [],
    declarations: DECLARATIONS,
    mainBody: `  ${SLOT_OF_INVOCATION}
  var n = 0u;
  for (var p = first; p < end; p++) { n += countOneBits(passMasks[p]); }
  slotOffsets[s] = n;`,
  };
}

/**
 * Pass 2, one workgroup: each thread sums a run of consecutive slots, the workgroup scans the 256 sums (Hillis–Steele
 * in workgroup memory), and each thread rewrites its run as exclusive offsets. slotOffsets[numSlots] and status[0]
 * get the total. A few tens of thousands of slots per request: one workgroup is enough.
 */
export function createPairSlotOffsetsProgram(): WgslProgram {
  return {
    cacheKey: 'pairRecords/slotOffsets',
    workgroupSize: [PAIR_RECORDS_WORKGROUP, 1],
    storage: [
      { name: 'slotOffsets', access: 'read_write', elementType: 'u32' },
      { name: 'status', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [{ name: 'numSlots', type: 'u32' }],
    extensions: [],
    declarations: `${DECLARATIONS}
var<workgroup> runTotals: array<u32, WG>;`,
    mainBody: `  let perThread = (u.numSlots + WG - 1u) / WG;
  let first = min(li * perThread, u.numSlots);
  let end = min(first + perThread, u.numSlots);
  var n = 0u;
  for (var s = first; s < end; s++) { n += slotOffsets[s]; }
  runTotals[li] = n;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d * 2u) {
    var before = 0u;
    if (li >= d) { before = runTotals[li - d]; }
    workgroupBarrier();
    runTotals[li] += before;
    workgroupBarrier();
  }
  var at = runTotals[li] - n;
  for (var s = first; s < end; s++) {
    let count = slotOffsets[s];
    slotOffsets[s] = at;
    at += count;
  }
  if (li == WG - 1u) {
    slotOffsets[u.numSlots] = runTotals[li];
    status[0] = runTotals[li];
  }`,
  };
}

/** Pass 3: each slot's records from its offset, in key order (pairs ascending, then entries 2a + b); masks cleared. */
export function createPairRecordWritesProgram(): WgslProgram {
  return {
    cacheKey: 'pairRecords/writes',
    workgroupSize: [PAIR_RECORDS_WORKGROUP, 1],
    storage: [
      { name: 'passMasks', access: 'read_write', elementType: 'u32' },
      { name: 'passValues', access: 'read', elementType: 'u32' },
      { name: 'slotOffsets', access: 'read', elementType: 'u32' },
      { name: 'records', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [
      { name: 'numPairs', type: 'u32' }, { name: 'numSlots', type: 'u32' }, { name: 'dispatchX', type: 'u32' },
      // The request's columns, and 2i / 2j of its row / column 0.
      { name: 'numCols', type: 'u32' }, { name: 'twiceRowFirst', type: 'u32' }, { name: 'twiceColFirst', type: 'u32' },
      { name: 'recordCapacity', type: 'u32' },
      // 1 for values named by pairs (entry 0 only): coordinates i and j instead of 2i + a and 2j + b.
      { name: 'coordinateShift', type: 'u32' },
    ],
    extensions: [],
    declarations: DECLARATIONS,
    mainBody: `  ${SLOT_OF_INVOCATION}
  let fits = slotOffsets[u.numSlots] <= u.recordCapacity;
  var at = slotOffsets[s];
  var row = first / u.numCols;
  var col = first - row * u.numCols;
  for (var p = first; p < end; p++) {
    let mask = passMasks[p];
    if (mask != 0u) {
      passMasks[p] = 0u;
      if (fits) {
        for (var e = 0u; e < 4u; e++) {
          if ((mask & (1u << e)) != 0u) {
            records[3u * at] = (u.twiceRowFirst + 2u * row + (e >> 1u)) >> u.coordinateShift;
            records[3u * at + 1u] = (u.twiceColFirst + 2u * col + (e & 1u)) >> u.coordinateShift;
            records[3u * at + 2u] = passValues[4u * p + e];
            at += 1u;
          }
        }
      }
    }
    col += 1u;
    if (col == u.numCols) {
      col = 0u;
      row += 1u;
    }
  }`,
  };
}
