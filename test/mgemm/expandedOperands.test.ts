// ExpandedOperands: an expansion is made once per (chunk, program) and holds the expand program's bytes (checked
// against the bit planes directly), is found again while kept, is made anew after the byte budget evicted it, and
// is refused (null) when one alone exceeds the budget, or when it would have to evict one the request holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpandProgram, EXPAND_WORKGROUP } from '../../src/mgemm/kernels/webgpu/programs/expandProgram.js';
import { ExpandedOperands } from '../../src/mgemm/kernels/webgpu/operands/expandedOperands.js';
import type { PlaneChunk } from '../../src/mgemm/kernels/webgpu/operands/residentPlanes.js';
import type { Dispatch, WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

const NUM_PLANES = 2;
const WORDS_PER_PLANE = 2;
const ROW_BYTES = 32 * WORDS_PER_PLANE;
const NUM_ROWS = 5;
const NUM_ROWS_PAD = 8;
const EXPANSION_BYTES = NUM_ROWS_PAD * ROW_BYTES;
const program = createExpandProgram(NUM_PLANES, [0, 1]);
/** Copies a (not readable) kept expansion into a readable buffer. */
const COPY_PROGRAM: WgslProgram = {
  cacheKey: 'test/copyWords',
  workgroupSize: [64, 1],
  storage: [{ name: 'src', access: 'read', elementType: 'u32' }, { name: 'dst', access: 'read_write', elementType: 'u32' }],
  uniforms: [{ name: 'numWords', type: 'u32' }],
  extensions: [],
  declarations: '',
  mainBody: `  let id = wg.x * 64u + li;
  if (id < u.numWords) { dst[id] = src[id]; }`,
};

describe.skipIf(!gate.available)(`ExpandedOperands on ${gate.description}`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => {
    runner = await openTestRunner();
  });
  afterAll(() => runner.destroy());

  const chunkOf = (words: Uint32Array): PlaneChunk => {
    const buffer = runner.createStorageBuffer(words.byteLength, { readBack: false });
    runner.upload(buffer, words);
    return { firstRow: 0, numRows: NUM_ROWS, buffer };
  };
  const expandOf = (chunk: PlaneChunk) => (target: GPUBuffer): Dispatch => ({
    program, storage: [chunk.buffer, target],
    uniforms: {
      rowFirst: 0, numRows: NUM_ROWS, numRowsPad: NUM_ROWS_PAD, wordsPerPlane: WORDS_PER_PLANE, wordFirst: 0, numWords: WORDS_PER_PLANE, numWorkgroupsX: 1,
    },
    workgroups: [Math.ceil((NUM_ROWS_PAD * WORDS_PER_PLANE * 8) / EXPAND_WORKGROUP), 1],
  });
  /** The bytes the expansion must hold: per field, the sum of its two plane bits; zero rows past NUM_ROWS. */
  const expected = (words: Uint32Array): Uint8Array => {
    const bytes = new Uint8Array(EXPANSION_BYTES);
    for (let r = 0; r < NUM_ROWS; r++) {
      for (let f = 0; f < 32 * WORDS_PER_PLANE; f++) {
        let sum = 0;
        for (let p = 0; p < NUM_PLANES; p++) sum += (words[(r * NUM_PLANES + p) * WORDS_PER_PLANE + (f >> 5)] >>> (f & 31)) & 1;
        bytes[r * ROW_BYTES + f] = sum;
      }
    }
    return bytes;
  };
  const readBytes = async (buffer: GPUBuffer): Promise<Uint8Array> => {
    const readable = runner.createStorageBuffer(EXPANSION_BYTES, { readBack: true });
    const numWords = EXPANSION_BYTES / 4;
    const words = await runner.runAndReadBack([{
      program: COPY_PROGRAM, storage: [buffer, readable], uniforms: { numWords }, workgroups: [Math.ceil(numWords / 64), 1],
    }], readable, EXPANSION_BYTES);
    readable.destroy();
    return new Uint8Array(words.buffer, words.byteOffset, EXPANSION_BYTES);
  };

  /** Two chunks of random planes on the GPU, and their words. */
  const twoRandomChunks = (seed: number): { planes: Uint32Array[]; chunkA: PlaneChunk; chunkB: PlaneChunk } => {
    const random = seededRandom(seed);
    const planes = [0, 1].map(() => Uint32Array.from({ length: NUM_ROWS * NUM_PLANES * WORDS_PER_PLANE }, () => Math.floor(random() * 2 ** 32)));
    const [chunkA, chunkB] = planes.map(chunkOf);
    return { planes, chunkA, chunkB };
  };

  it('keeps one expansion per chunk within the budget, evicting the least recently used', async () => {
    const { planes, chunkA, chunkB } = twoRandomChunks(77);
    // Room for one expansion: the second evicts the first.
    const kept = new ExpandedOperands(runner, { keptBytes: EXPANSION_BYTES, maxBufferBytes: EXPANSION_BYTES });
    const a1 = await kept.of(chunkA, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkA), []);
    expect(a1).not.toBeNull();
    expect(await readBytes(a1 as GPUBuffer)).toEqual(expected(planes[0]));
    expect(await kept.of(chunkA, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkA), [])).toBe(a1);
    const b1 = await kept.of(chunkB, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkB), []);
    expect(await readBytes(b1 as GPUBuffer)).toEqual(expected(planes[1]));
    const a2 = await kept.of(chunkA, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkA), []);
    expect(a2).not.toBe(a1);
    expect(await readBytes(a2 as GPUBuffer)).toEqual(expected(planes[0]));
    // Larger than the whole budget: not kept.
    expect(await kept.of(chunkA, program, ROW_BYTES, 2 * NUM_ROWS_PAD, expandOf(chunkA), [])).toBeNull();
    kept.clear();
    chunkA.buffer.destroy();
    chunkB.buffer.destroy();
  });

  // A sparse request expands B two ways: the second expansion must not evict the first, which the request's
  // dispatches (not submitted yet) still read.
  it('never evicts an expansion the request holds: the next one is refused instead', async () => {
    const { planes, chunkA, chunkB } = twoRandomChunks(78);
    const kept = new ExpandedOperands(runner, { keptBytes: EXPANSION_BYTES, maxBufferBytes: EXPANSION_BYTES });
    const a1 = await kept.of(chunkA, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkA), []);
    expect(a1).not.toBeNull();
    expect(await kept.of(chunkB, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkB), [a1 as GPUBuffer])).toBeNull();
    // Still kept and intact: found again, same bytes.
    expect(await kept.of(chunkA, program, ROW_BYTES, NUM_ROWS_PAD, expandOf(chunkA), [])).toBe(a1);
    expect(await readBytes(a1 as GPUBuffer)).toEqual(expected(planes[0]));
    kept.clear();
    chunkA.buffer.destroy();
    chunkB.buffer.destroy();
  });
});
