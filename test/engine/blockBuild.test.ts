// buildBlock (packed rows, split over block workers) gives exactly the planes of the per-field definition of
// SPEC §4 packed bit by bit (planesFromCodes), for every layout, both synthetic problems and a packed file of the
// random one, ragged slabs and several thread counts; rows become final front to back (startBlockBuild); small
// blocks stay on one thread; a file that cannot be read fails as a user's error naming it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { packFieldValues, writePackedVectorFile } from '../../src/io/packedVectorFile.js';
import { AnalyticProblem, randomProblemCode } from '../../src/core/syntheticProblems.js';
import type { MetricKind } from '../../src/core/types.js';
import { runJob } from '../../src/engine/index.js';
import { blockThreadCount, buildBlock, MIN_FIELDS_PER_BLOCK_THREAD, startBlockBuild } from '../../src/engine/blocks/blockBuild.js';
import type { ProblemSource } from '../../src/engine/run/jobSpec.js';
import { planeLayout } from '../helpers/layouts.js';
import { planesFromCodes, type RowCodes, type SlabShape } from '../../src/engine/blocks/vectorBlock.js';
import { MEMORY_ROWS_FINAL } from '../../src/engine/blocks/blockRows.js';
import { makeJob } from './jobFixtures.js';

type Problem = 'random' | 'analytic';

/** Row codes straight from the per-field definitions (no row tricks, no tables). */
function definitionRowCodes(problem: Problem, numVector: number, numField: number): RowCodes {
  const analytic = new AnalyticProblem(numVector, numField);
  const code = problem === 'random'
    ? (v: number, f: number) => randomProblemCode(v, f, numField)
    : (v: number, f: number) => analytic.code(v, f);
  return (v, fieldFirst, out) => {
    for (let f = 0; f < out.length; f++) out[f] = code(v, fieldFirst + f);
  };
}

async function expectSameAsDefinition(
  problem: Problem, metric: MetricKind, sparse: boolean, numVector: number, numField: number, shape: SlabShape, numThreads: number,
): Promise<void> {
  const layout = planeLayout(metric, sparse);
  const expectedPlanes = planesFromCodes(layout, shape, definitionRowCodes(problem, numVector, numField));
  const planes = await buildBlock({ kind: problem }, numVector, numField, layout, shape, { numThreads, minFieldsPerThread: 1 });
  expect(planes.numVectors).toBe(expectedPlanes.numVectors);
  expect(planes.numPlanes).toBe(expectedPlanes.numPlanes);
  expect(planes.wordsPerPlane).toBe(expectedPlanes.wordsPerPlane);
  expect(planes.words.buffer).toBeInstanceOf(SharedArrayBuffer);
  expect(Array.from(planes.words)).toEqual(Array.from(expectedPlanes.words));
}

describe('buildBlock', () => {
  // Every layout and problem: a slab of the middle of the vectors and fields, with pad rows.
  const shape: SlabShape = { numVectorLocal: 24, vectorFirst: 40, numVectorReal: 21, fieldFirst: 37, numFieldLocal: 203 };
  for (const problem of ['random', 'analytic'] as Problem[]) {
    for (const metric of ['ccc', 'duo', 'r2'] as MetricKind[]) {
      for (const sparse of [false, true]) {
        for (const numThreads of [1, 3]) {
          it(`${problem} ${metric} ${sparse ? 'sparse' : 'dense'}, ${numThreads} thread(s)`, async () => {
            await expectSameAsDefinition(problem, metric, sparse, 100, 300, shape, numThreads);
          });
        }
      }
    }
  }

  // Ragged sizes: field counts around word and byte edges, fewer rows than threads, one row, no rows.
  const ragged: Array<{ numVector: number; numField: number; shape: SlabShape }> = [
    { numVector: 7, numField: 1, shape: { numVectorLocal: 8, vectorFirst: 0, numVectorReal: 7, fieldFirst: 0, numFieldLocal: 1 } },
    { numVector: 50, numField: 66, shape: { numVectorLocal: 18, vectorFirst: 32, numVectorReal: 18, fieldFirst: 33, numFieldLocal: 33 } },
    { numVector: 3, numField: 1000, shape: { numVectorLocal: 6, vectorFirst: 1, numVectorReal: 2, fieldFirst: 0, numFieldLocal: 1000 } },
    { numVector: 9, numField: 64, shape: { numVectorLocal: 6, vectorFirst: 8, numVectorReal: 1, fieldFirst: 32, numFieldLocal: 32 } },
    { numVector: 6, numField: 10, shape: { numVectorLocal: 6, vectorFirst: 6, numVectorReal: 0, fieldFirst: 0, numFieldLocal: 10 } },
    { numVector: 200, numField: 4099, shape: { numVectorLocal: 66, vectorFirst: 132, numVectorReal: 66, fieldFirst: 2049, numFieldLocal: 2050 } },
  ];
  for (const { numVector, numField, shape: s } of ragged) {
    for (const numThreads of [2, 5]) {
      it(`ragged: rows ${s.numVectorReal}/${s.numVectorLocal}, fields ${s.fieldFirst}+${s.numFieldLocal} of ${numField}, ${numThreads} threads`, async () => {
        await expectSameAsDefinition('random', 'ccc', true, numVector, numField, s, numThreads);
        await expectSameAsDefinition('analytic', 'duo', false, numVector, numField, s, numThreads);
      });
    }
  }
});

describe('buildBlock, random rows longer than the randomizer\'s walk', () => {
  // 718,752 groups of 8 fields > 714,025 positions: the rows wrap around the walk's tables.
  it('random ccc sparse, 2 rows of 5,750,013 fields from field 3, 2 threads', async () => {
    const shape: SlabShape = { numVectorLocal: 2, vectorFirst: 1, numVectorReal: 2, fieldFirst: 3, numFieldLocal: 5_750_013 };
    await expectSameAsDefinition('random', 'ccc', true, 3, 5_800_000, shape, 2);
  });
});

describe('startBlockBuild', () => {
  const numVector = 100;
  const numField = 5000;
  const shape: SlabShape = { numVectorLocal: 64, vectorFirst: 10, numVectorReal: 61, fieldFirst: 0, numFieldLocal: numField };

  // One row per chunk, three workers: rows finish out of order, and rowsReady must wait for every row before rowEnd.
  it('has rows [0, rowEnd) final when rowsReady(rowEnd) resolves, and all of them when done resolves', async () => {
    const layout = planeLayout('ccc', true);
    const expected = planesFromCodes(layout, shape, definitionRowCodes('random', numVector, numField));
    const filling = startBlockBuild({ kind: 'random' }, numVector, numField, layout, shape, { numThreads: 3, minFieldsPerThread: 1, chunkBytes: 1 });
    const rowWords = layout.numPlanes * filling.planes.wordsPerPlane;
    for (const rowEnd of [1, 7, 30, 61, 64]) {
      await filling.rowsReady(rowEnd);
      // Copied at once, before any other event: what a reader sees at this moment.
      const seen = filling.planes.words.slice(0, Math.min(rowEnd, shape.numVectorReal) * rowWords);
      expect(Array.from(seen)).toEqual(Array.from(expected.words.subarray(0, seen.length)));
    }
    await filling.done;
    expect(Array.from(filling.planes.words)).toEqual(Array.from(expected.words));
  });

  it('rejects rowsReady and done with the worker\'s message when a block worker fails', async () => {
    const layout = planeLayout('duo', false);
    const filling = startBlockBuild({ kind: 'bogus' } as unknown as ProblemSource, numVector, numField, layout, shape, { numThreads: 2, minFieldsPerThread: 1 });
    await expect(filling.rowsReady(5)).rejects.toThrow(/block worker failed: unknown block source 'bogus'/);
    await expect(filling.done).rejects.toThrow(/unknown block source/);
    await expect(filling.rowsReady(1)).rejects.toThrow(/unknown block source/);
  });
});

// A block of 4 GiB or more (e.g. 262144 vectors × 65536 fields on one rank): its words reach the block workers whole
// (structured clone truncates such views, core/largeViews.ts). Only the first rows are real: the rest of the
// buffer is reserved, never touched.
describe('buildBlock, a block past 4 GiB', () => {
  it('random ccc dense, 48 real rows of a 4 GiB + 32 KiB block, 2 threads', async () => {
    const layout = planeLayout('ccc', false);
    const numField = 8192;
    const rowBytes = layout.numPlanes * (numField / 8);
    const numVectorLocal = 2 ** 32 / rowBytes + 16;
    const shape: SlabShape = { numVectorLocal, vectorFirst: 0, numVectorReal: 48, fieldFirst: 0, numFieldLocal: numField };
    const planes = await buildBlock({ kind: 'random' }, 48, numField, layout, shape, { numThreads: 2, minFieldsPerThread: 1 });
    expect(planes.words.byteLength).toBeGreaterThan(2 ** 32);
    const expected = planesFromCodes(layout, { ...shape, numVectorLocal: 48 }, definitionRowCodes('random', 48, numField));
    expect(Array.from(planes.words.subarray(0, expected.words.length))).toEqual(Array.from(expected.words));
  });
});

describe('blocks read from a packed vector file', () => {
  // The file holds the random problem of SPEC §4 (written from its per-field definition), so the planes read from
  // any slab of it must be the definition's planes of that slab.
  const numVector = 70;
  const numField = 1037;
  let dir = '';
  let path = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'snptally-block-'));
    path = join(dir, 'random.bin');
    const codes = definitionRowCodes('random', numVector, numField);
    const row = new Uint8Array(numField);
    writePackedVectorFile(path, packFieldValues(numVector, numField, (v, f) => {
      if (f === 0) codes(v, 0, row);
      return row[f];
    }), numVector, numField);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const shapes: SlabShape[] = [
    { numVectorLocal: 72, vectorFirst: 0, numVectorReal: 70, fieldFirst: 0, numFieldLocal: numField },
    { numVectorLocal: 24, vectorFirst: 23, numVectorReal: 23, fieldFirst: 37, numFieldLocal: 518 },
    { numVectorLocal: 8, vectorFirst: 66, numVectorReal: 4, fieldFirst: 1000, numFieldLocal: 37 },
  ];
  for (const shape of shapes) {
    for (const numThreads of [1, 3]) {
      it(`rows ${shape.vectorFirst}+${shape.numVectorReal}, fields ${shape.fieldFirst}+${shape.numFieldLocal}, ${numThreads} thread(s)`, async () => {
        const layout = planeLayout('ccc', true);
        const expected = planesFromCodes(layout, shape, definitionRowCodes('random', numVector, numField));
        const planes = await buildBlock({ kind: 'file', path }, numVector, numField, layout, shape, { numThreads, minFieldsPerThread: 1, chunkBytes: 64 });
        expect(Array.from(planes.words)).toEqual(Array.from(expected.words));
      });
    }
  }

  it('fails as a user\'s error naming the file when it cannot be read, on workers and on one thread', async () => {
    const shape = shapes[1];
    const layout = planeLayout('duo', false);
    const missing = join(dir, 'missing.bin');
    const filling = startBlockBuild({ kind: 'file', path: missing }, numVector, numField, layout, shape, { numThreads: 2, minFieldsPerThread: 1 });
    await expect(filling.done).rejects.toThrow(UserError);
    await expect(filling.rowsReady(1)).rejects.toThrow(missing);
    expect(() => startBlockBuild({ kind: 'file', path: missing }, numVector, numField, layout, shape, { numThreads: 1 })).toThrow(UserError);
  });
});

describe('blocks of rows in memory still being written', () => {
  // The rows (the random problem, SPEC §4) are written only after the block workers have started: each waits for the
  // state to turn final, so the planes must be the definition's; a state that turns failed fails the build.
  const numVector = 40;
  const numField = 517;
  const shape: SlabShape = { numVectorLocal: 40, vectorFirst: 0, numVectorReal: 37, fieldFirst: 0, numFieldLocal: numField };
  const codes = definitionRowCodes('random', numVector, numField);
  const row = new Uint8Array(numField);
  const packedRows = packFieldValues(numVector, numField, (v, f) => {
    if (f === 0) codes(v, 0, row);
    return row[f];
  });
  const memorySource = (): { source: Extract<ProblemSource, { kind: 'memory' }>; settle: (state: number) => void } => {
    const packed = new Uint8Array(new SharedArrayBuffer(packedRows.length));
    const state = new Int32Array(new SharedArrayBuffer(4));
    return {
      source: { kind: 'memory', packed, state },
      settle: (value) => {
        if (value === MEMORY_ROWS_FINAL) packed.set(packedRows);
        Atomics.store(state, 0, value);
        Atomics.notify(state, 0);
      },
    };
  };

  it('builds the definition\'s planes once the rows are final, on 3 workers started before', async () => {
    const layout = planeLayout('ccc', true);
    const { source, settle } = memorySource();
    const filling = startBlockBuild(source, numVector, numField, layout, shape, { numThreads: 3, minFieldsPerThread: 1, chunkBytes: 64, rowsFinal: source.state });
    let anyRowFinal = false;
    void filling.rowsReady(1).then(() => { anyRowFinal = true; });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(anyRowFinal).toBe(false);
    settle(MEMORY_ROWS_FINAL);
    await filling.done;
    expect(Array.from(filling.planes.words)).toEqual(Array.from(planesFromCodes(layout, shape, codes).words));
  });

  it('fails when the rows never come, and refuses to wait on one thread', async () => {
    const layout = planeLayout('duo', false);
    const { source, settle } = memorySource();
    const filling = startBlockBuild(source, numVector, numField, layout, shape, { numThreads: 2, minFieldsPerThread: 1, rowsFinal: source.state });
    settle(2);
    await expect(filling.done).rejects.toThrow('the input in memory was not completed');
    expect(() => startBlockBuild(source, numVector, numField, layout, shape, { numThreads: 1, rowsFinal: source.state })).toThrow('rows final');
  });
});

describe('blockThreadCount', () => {
  it('keeps blocks below two threads\' worth of fields on one thread', () => {
    expect(blockThreadCount(4096, 4096 * 4096, { numThreads: 16 })).toBe(1);
    expect(blockThreadCount(2048, 2 * MIN_FIELDS_PER_BLOCK_THREAD - 1, { numThreads: 16 })).toBe(1);
    expect(blockThreadCount(2048, 2 * MIN_FIELDS_PER_BLOCK_THREAD, { numThreads: 16 })).toBe(2);
    expect(blockThreadCount(4096, 4096 * 65536, { numThreads: 2 })).toBe(2);
  });
  it('uses at most the rank\'s threads and one thread per row', () => {
    expect(blockThreadCount(32768, 32768 * 65536, { numThreads: 16 })).toBe(16);
    expect(blockThreadCount(32768, 32768 * 65536, { numThreads: 3 })).toBe(3);
    expect(blockThreadCount(2, 1e12, { numThreads: 16 })).toBe(2);
    expect(blockThreadCount(0, 0, { numThreads: 4, minFieldsPerThread: 1 })).toBe(1);
  });
});

describe('runs whose own block is built on block workers', () => {
  // 9 vectors × (2^24 − 1) fields: over twice MIN_FIELDS_PER_BLOCK_THREAD, so 2 threads split the block,
  // while the pairs themselves are few (CCC allows 4·nf < 2^26).
  const numVector = 9;
  const numField = (1 << 24) - 1;
  it('have the checksum of a run built on one thread (random)', async () => {
    expect(blockThreadCount(numVector, numVector * numField, { numThreads: 2 })).toBe(2);
    const one = await runJob(makeJob({ numVector, numField, numThreads: 1 }));
    const two = await runJob(makeJob({ numVector, numField, numThreads: 2 }));
    expect(two.checksum).toBe(one.checksum);
    expect(two.entries).toBe(one.entries);
  }, 120_000);
  it('verify every value of the analytic problem', async () => {
    const result = await runJob(makeJob({ numVector, numField, numThreads: 2, source: { kind: 'analytic' }, verify: true }));
    expect(result.verifiedValues).toBe(4 * (numVector * (numVector - 1)) / 2);
  }, 120_000);
});
