// The ordered compaction of 2-way records on the device (pairRecordPrograms.ts) against a plain loop: random pass
// masks and values over requests of a few to many slots (the scan's runs of one and of many slots per thread), empty
// and full slots, records that overflow their room (none written, the total still reported), and the masks left zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairRecordDispatches, pairSlots, type PairRecordPlace } from '../../src/mgemm/kernels/webgpu/finalize/pairFinalizeWebgpu.js';
import { createPairRecordWritesProgram, createPairSlotCountsProgram, createPairSlotOffsetsProgram, PAIRS_PER_SLOT } from '../../src/mgemm/kernels/webgpu/finalize/pairRecordPrograms.js';
import type { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

const PROGRAMS = {
  slotCounts: createPairSlotCountsProgram(),
  slotOffsets: createPairSlotOffsetsProgram(),
  recordWrites: createPairRecordWritesProgram(),
};

/** Masks (4 bits a pair) and values of a request: slot s is empty, full or random by s mod 5. */
function passesOf(numPairs: number, seed: number): { masks: Uint32Array; values: Uint32Array } {
  const random = seededRandom(seed);
  const masks = new Uint32Array(numPairs);
  const values = new Uint32Array(4 * numPairs);
  for (let p = 0; p < numPairs; p++) {
    const kind = Math.floor(p / PAIRS_PER_SLOT) % 5;
    masks[p] = kind === 0 ? 0 : kind === 1 ? 15 : random() < 0.6 ? 0 : Math.floor(random() * 16);
    for (let e = 0; e < 4; e++) if ((masks[p] >> e) & 1) values[4 * p + e] = Math.floor(random() * 2 ** 32);
  }
  return { masks, values };
}

/** The records a loop over the pairs gives: row-major, entries 2a + b ascending, [2i + a, 2j + b, value]. */
function referenceRecords(place: PairRecordPlace, masks: Uint32Array, values: Uint32Array): number[] {
  const out: number[] = [];
  const { aFirst, bFirst, bCount } = place.gemm;
  for (let p = 0; p < masks.length; p++) {
    const row = Math.floor(p / bCount);
    const col = p % bCount;
    for (let e = 0; e < 4; e++) {
      if (((masks[p] >> e) & 1) === 0) continue;
      out.push(2 * (place.rowVectorFirst + aFirst + row) + (e >> 1), 2 * (place.colVectorFirst + bFirst + col) + (e & 1), values[4 * p + e]);
    }
  }
  return out;
}

describe.skipIf(!gate.available)(`pair record compaction on ${gate.description}`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => {
    runner = await openTestRunner();
  });
  afterAll(() => runner.destroy());

  /** Runs the three dispatches on `masks` / `values` with room for `capacity` records (prefilled with 0xffffffff). */
  async function compact(
    place: PairRecordPlace, masks: Uint32Array, values: Uint32Array, capacity: number,
  ): Promise<{ total: number; records: Uint32Array; masksAfter: Uint32Array }> {
    const buffer = (words: Uint32Array): GPUBuffer => {
      const b = runner.createStorageBuffer(Math.max(16, words.byteLength), { readBack: true });
      runner.upload(b, words);
      return b;
    };
    const buffers = {
      status: buffer(new Uint32Array(4)),
      passMasks: buffer(masks),
      passValues: buffer(values),
      slotOffsets: buffer(new Uint32Array(pairSlots(masks.length) + 1)),
      records: buffer(new Uint32Array(3 * capacity).fill(0xffffffff)),
    };
    const dispatches = pairRecordDispatches(PROGRAMS, place, buffers, { recordCapacity: capacity, maxWorkgroupsPerDimension: 7 });
    const [status, records, after] = await runner.runAndReadBackMany(dispatches, [
      { buffer: buffers.status, numBytes: 16 }, { buffer: buffers.records, numBytes: 12 * capacity }, { buffer: buffers.passMasks, numBytes: 4 * masks.length },
    ]);
    for (const b of Object.values(buffers)) b.destroy();
    return { total: status[0], records, masksAfter: after };
  }

  it.each([
    { name: '3 × 5 pairs (one slot)', aCount: 3, bCount: 5, seed: 1 },
    { name: '37 × 1000 pairs (579 slots: runs of 3)', aCount: 37, bCount: 1000, seed: 2 },
    // 14 063 slots over 256 threads (runs of 55) and a 2-D grid (7 workgroups a row).
    { name: '300 × 3000 pairs', aCount: 300, bCount: 3000, seed: 3 },
  ])('writes every passing entry in key order and clears the masks: $name', async ({ aCount, bCount, seed }) => {
    const place: PairRecordPlace = { rowVectorFirst: 1000, colVectorFirst: 37, gemm: { aFirst: 3, aCount, bFirst: 11, bCount } };
    const { masks, values } = passesOf(aCount * bCount, seed);
    const want = referenceRecords(place, masks, values);
    const got = await compact(place, masks, values, want.length / 3 + 5);
    expect(got.total).toBe(want.length / 3);
    expect(Array.from(got.records.subarray(0, want.length))).toEqual(want);
    expect(got.records.subarray(want.length).every((w) => w === 0xffffffff)).toBe(true);
    expect(got.masksAfter.every((m) => m === 0)).toBe(true);
  });

  it('writes nothing but reports the total when the records overflow their room, and still clears the masks', async () => {
    const place: PairRecordPlace = { rowVectorFirst: 0, colVectorFirst: 0, gemm: { aFirst: 0, aCount: 50, bFirst: 0, bCount: 200 } };
    const { masks, values } = passesOf(50 * 200, 4);
    const numRecords = referenceRecords(place, masks, values).length / 3;
    const got = await compact(place, masks, values, numRecords - 1);
    expect(got.total).toBe(numRecords);
    expect(got.records.every((w) => w === 0xffffffff)).toBe(true);
    expect(got.masksAfter.every((m) => m === 0)).toBe(true);
  });
});
