// Matrices held as code rows (PlaneMatrix.codeRows: a GPU run's own block of rows in memory) cross to the GPU as their
// 2-bit codes and become planes there (residentPlanes.ts, codePlanesProgram.ts): tallies and vector sums equal those
// of the planes built bit by bit from the same codes in this file, for ragged field counts, pad rows, rows of more
// bytes than their fields need, codes whose planes are all set (code 0 too: pad fields must stay zero), several
// chunks and staging pieces, and rows that become final late. The host's packing of code rows (codeRowPlanes.ts
// hostPlanesOf, for a host finalize) gives the same words; CPU kernel sets refuse such matrices.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, planeWordsFor, type PlaneMatrix, type PopcountGemmRequest, type PopcountGemmWebgpu, type TermGroup,
  type WebgpuPopcountGemmOptions,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { hostPlanesOf } from '../../src/engine/blocks/codeRowPlanes.js';
import { disjointGroupsOf } from '../../src/mgemm/kernels/webgpu/plan/disjointGroups.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { neededMismatches, seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

/** KING's code table (het, hom1, hom2, present; code 10 missing), and one where every code sets some plane. */
const KING_BITS = [12, 9, 0, 10] as const;
const DENSE_BITS = [0b111, 0b010, 0b101, 0b001] as const;

interface CodeRowCase {
  readonly name: string;
  readonly numVectors: number;
  readonly numRowsReal: number;
  readonly numField: number;
  /** Bytes a row takes beyond ⌈numField / 4⌉ (garbage there must not reach a plane). */
  readonly extraBytes: number;
  readonly bitsOfCode: readonly number[];
  readonly numPlanes: number;
}

const CASES: readonly CodeRowCase[] = [
  { name: 'KING, 1003 fields, 3 pad rows', numVectors: 40, numRowsReal: 37, numField: 1003, extraBytes: 0, bitsOfCode: KING_BITS, numPlanes: 4 },
  { name: 'every code sets a plane, 33 fields, rows of 3 more bytes', numVectors: 19, numRowsReal: 19, numField: 33, extraBytes: 3, bitsOfCode: DENSE_BITS, numPlanes: 3 },
  { name: 'one field', numVectors: 9, numRowsReal: 7, numField: 1, extraBytes: 2, bitsOfCode: DENSE_BITS, numPlanes: 3 },
  { name: 'whole words, 4096 fields', numVectors: 24, numRowsReal: 24, numField: 4096, extraBytes: 0, bitsOfCode: KING_BITS, numPlanes: 4 },
];

/** Random code rows of a case: every byte random, so pad fields and extra bytes hold garbage. */
function codeRowMatrix(seed: number, c: CodeRowCase): PlaneMatrix {
  const bytesPerRow = Math.ceil(c.numField / 4) + c.extraBytes;
  const random = seededRandom(seed);
  const bytes = new Uint8Array(new SharedArrayBuffer(c.numRowsReal * bytesPerRow));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return {
    numVectors: c.numVectors, numPlanes: c.numPlanes, wordsPerPlane: planeWordsFor(c.numField), words: new Uint32Array(0),
    codeRows: { bytes, bytesPerRow, numRowsReal: c.numRowsReal, numField: c.numField, bitsOfCode: c.bitsOfCode },
  };
}

/** The planes of code rows, a bit at a time (fields past numField and rows past the real ones zero). */
function naivePlanes(m: PlaneMatrix): PlaneMatrix {
  const rows = m.codeRows;
  if (rows === undefined || rows === null) throw new Error('no code rows');
  const words = new Uint32Array(m.numVectors * m.numPlanes * m.wordsPerPlane);
  for (let r = 0; r < rows.numRowsReal; r++) {
    for (let f = 0; f < rows.numField; f++) {
      const code = (rows.bytes[r * rows.bytesPerRow + (f >> 2)] >> (2 * (f & 3))) & 3;
      for (let p = 0; p < m.numPlanes; p++) {
        if (((rows.bitsOfCode[code] >> p) & 1) === 1) words[(r * m.numPlanes + p) * m.wordsPerPlane + (f >> 5)] |= 1 << (f & 31);
      }
    }
  }
  return { numVectors: m.numVectors, numPlanes: m.numPlanes, wordsPerPlane: m.wordsPerPlane, words };
}

interface CodeRecordCase {
  readonly name: string;
  readonly numVectors: number;
  readonly numRowsReal: number;
  readonly vectorFirst: number;
  readonly numField: number;
  readonly bytesPerRecord: number;
  readonly bitsOfCode: readonly number[];
  readonly numPlanes: number;
}

const RECORD_CASES: readonly CodeRecordCase[] = [
  { name: 'KING, 1003 records of 11 bytes, vectors 5…41 of them', numVectors: 40, numRowsReal: 37, vectorFirst: 5, numField: 1003, bytesPerRecord: 11, bitsOfCode: KING_BITS, numPlanes: 4 },
  { name: 'every code sets a plane, 33 records', numVectors: 19, numRowsReal: 19, vectorFirst: 0, numField: 33, bytesPerRecord: 5, bitsOfCode: DENSE_BITS, numPlanes: 3 },
  // 625 words a record: 6688 records a staging piece, so 14,000 records cross in 3 pieces.
  { name: '14,000 records of 2500 bytes (3 staging pieces)', numVectors: 24, numRowsReal: 20, vectorFirst: 9001, numField: 14000, bytesPerRecord: 2500, bitsOfCode: KING_BITS, numPlanes: 4 },
];

/** Random code records of a case (every byte random), read from memory as a .bed's records are read from its file. */
function codeRecordMatrix(seed: number, c: CodeRecordCase): { readonly matrix: PlaneMatrix; readonly record: (f: number) => Uint8Array } {
  const random = seededRandom(seed);
  const bytes = new Uint8Array(c.numField * c.bytesPerRecord);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  const record = (f: number): Uint8Array => bytes.subarray(f * c.bytesPerRecord, (f + 1) * c.bytesPerRecord);
  const recordBytes = 4 * Math.ceil(c.bytesPerRecord / 4);
  const matrix: PlaneMatrix = {
    numVectors: c.numVectors, numPlanes: c.numPlanes, wordsPerPlane: planeWordsFor(c.numField), words: new Uint32Array(0),
    codeRecords: {
      numField: c.numField, bytesPerRecord: c.bytesPerRecord, vectorFirst: c.vectorFirst, numRowsReal: c.numRowsReal, bitsOfCode: c.bitsOfCode,
      readRecords: (into, first, count) => {
        for (let k = 0; k < count; k++) into.set(record(first + k), k * recordBytes);
      },
    },
  };
  return { matrix, record };
}

/** The planes of code records, a bit at a time. */
function naiveRecordPlanes(m: PlaneMatrix, record: (f: number) => Uint8Array): PlaneMatrix {
  const records = m.codeRecords;
  if (records === undefined || records === null) throw new Error('no code records');
  const words = new Uint32Array(m.numVectors * m.numPlanes * m.wordsPerPlane);
  for (let r = 0; r < records.numRowsReal; r++) {
    const v = records.vectorFirst + r;
    for (let f = 0; f < records.numField; f++) {
      const code = (record(f)[v >> 2] >> (2 * (v & 3))) & 3;
      for (let p = 0; p < m.numPlanes; p++) {
        if (((records.bitsOfCode[code] >> p) & 1) === 1) words[(r * m.numPlanes + p) * m.wordsPerPlane + (f >> 5)] |= 1 << (f & 31);
      }
    }
  }
  return { numVectors: m.numVectors, numPlanes: m.numPlanes, wordsPerPlane: m.wordsPerPlane, words };
}

/** Every plane pair as its own group, and a group of two terms. */
function allPairGroups(numPlanes: number): TermGroup[] {
  const groups: TermGroup[] = [];
  for (let p = 0; p < numPlanes; p++) for (let q = 0; q < numPlanes; q++) groups.push([[p, q]]);
  groups.push([[0, 1], [1, 0]]);
  return groups;
}

describe('hostPlanesOf', () => {
  it.each(CASES)('packs code rows into the planes built bit by bit ($name)', (c) => {
    const m = codeRowMatrix(11, c);
    const host = hostPlanesOf(m);
    expect(Array.from(host.words)).toEqual(Array.from(naivePlanes(m).words));
    expect(hostPlanesOf(m)).toBe(host);
  });

  it('leaves a matrix with words as it is', () => {
    const plain: PlaneMatrix = { numVectors: 1, numPlanes: 1, wordsPerPlane: 4, words: new Uint32Array(4) };
    expect(hostPlanesOf(plain)).toBe(plain);
  });
});

describe('CPU kernel sets and code rows', () => {
  it('refuse a matrix held as code rows', async () => {
    const m = codeRowMatrix(12, CASES[0]);
    const request: PopcountGemmRequest = { a: m, aFirst: 0, aCount: 2, b: m, bFirst: 0, bCount: 2, termGroups: [[[0, 0]]], strictUpper: false };
    await expect(new PopcountGemmRef().run(request)).rejects.toThrow(/code rows/);
  });
});

const OPTION_SETS: readonly { readonly name: string; readonly options: WebgpuPopcountGemmOptions }[] = [
  { name: 'bitwise', options: { kernel: 'bitwise' } },
  // 4 KiB bindings: chunks of a few rows, each its own upload.
  { name: 'bitwise, 4 KiB bindings', options: { kernel: 'bitwise', maxBindingBytes: 4096 } },
  { name: 'u8 dot4', options: { kernel: 'dot4' } },
];

describe.skipIf(!gate.available)(`code rows uploaded on ${gate.description}`, () => {
  const ref = new PopcountGemmRef();
  describe.each(OPTION_SETS)('$name', ({ options }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each(CASES)('gives the tallies and sums of the planes built bit by bit ($name)', async (c) => {
      const a = codeRowMatrix(21, c);
      const b = codeRowMatrix(22, { ...c, numRowsReal: c.numVectors - 1 });
      const groups = options.kernel === 'dot4' ? allPairGroups(c.numPlanes).filter((g) => g.length === 1) : allPairGroups(c.numPlanes);
      const request: PopcountGemmRequest = { a, aFirst: 0, aCount: c.numVectors, b, bFirst: 1, bCount: c.numVectors - 1, termGroups: groups, strictUpper: false };
      const expected = await ref.run({ ...request, a: naivePlanes(a), b: naivePlanes(b) });
      const before = gemm.transfers.uploadedBytes;
      expect(neededMismatches(request, expected, await gemm.run(request))).toEqual([]);
      // Only the codes crossed: a row as its bytes in whole words.
      const rowBytes = (m: PlaneMatrix): number => 4 * Math.ceil((m.codeRows?.bytesPerRow ?? 0) / 4);
      expect(gemm.transfers.uploadedBytes - before).toBe(c.numVectors * (rowBytes(a) + rowBytes(b)));
      const sums = await gemm.vectorSums({ planes: a, countPlanes: [0, 1], maskPlane: c.numPlanes - 1 });
      const expectedSums = await ref.vectorSums({ planes: naivePlanes(a), countPlanes: [0, 1], maskPlane: c.numPlanes - 1 });
      expect(Array.from(sums.sums)).toEqual(Array.from(expectedSums.sums));
      expect(Array.from(sums.counts)).toEqual(Array.from(expectedSums.counts));
    });
  });

  // A row of the large case (7040 bytes of planes) does not fit a 4 KiB binding: those bindings take the small cases.
  const recordSets = [
    { ...OPTION_SETS[0], cases: RECORD_CASES },
    { ...OPTION_SETS[1], cases: RECORD_CASES.filter((c) => c.numPlanes * planeWordsFor(c.numField) * 4 <= 4096) },
  ];
  describe.each(recordSets)('code records, $name', ({ options, cases }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each(cases)('gives the tallies and sums of the planes built bit by bit ($name)', async (c) => {
      const a = codeRecordMatrix(41, c);
      const b = codeRecordMatrix(42, { ...c, numRowsReal: c.numVectors - 1 });
      const groups = allPairGroups(c.numPlanes);
      const request: PopcountGemmRequest = {
        a: a.matrix, aFirst: 0, aCount: c.numVectors, b: b.matrix, bFirst: 1, bCount: c.numVectors - 1, termGroups: groups, strictUpper: false,
      };
      const naiveA = naiveRecordPlanes(a.matrix, a.record);
      const expected = await ref.run({ ...request, a: naiveA, b: naiveRecordPlanes(b.matrix, b.record) });
      expect(neededMismatches(request, expected, await gemm.run(request))).toEqual([]);
      const sums = await gemm.vectorSums({ planes: a.matrix, countPlanes: [0, 1], maskPlane: c.numPlanes - 1 });
      const expectedSums = await ref.vectorSums({ planes: naiveA, countPlanes: [0, 1], maskPlane: c.numPlanes - 1 });
      expect(Array.from(sums.sums)).toEqual(Array.from(expectedSums.sums));
      expect(Array.from(sums.counts)).toEqual(Array.from(expectedSums.counts));
    });
  });

  // KING's groups on its code table: [HOM1 HOM2 + HOM2 HOM1] is one popcount of an OR (plan/disjointGroups.ts); a
  // table where a code sets both planes keeps two popcounts. Both equal the planes built bit by bit.
  it.each([
    { name: 'KING, disjoint', bitsOfCode: KING_BITS, fused: [false, true, false, false] },
    { name: 'a code setting HOM1 and HOM2', bitsOfCode: [12, 9, 0, 14], fused: [false, false, false, false] },
  ])('fuses a group only where its products are disjoint by the code table ($name)', async ({ bitsOfCode, fused }) => {
    const groups: TermGroup[] = [[[0, 0]], [[1, 2], [2, 1]], [[0, 3]], [[3, 0]]];
    expect(disjointGroupsOf(groups, bitsOfCode, bitsOfCode)).toEqual(fused);
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const c: CodeRowCase = { name: 'king', numVectors: 37, numRowsReal: 35, numField: 1003, extraBytes: 1, bitsOfCode, numPlanes: 4 };
      const a = codeRowMatrix(51, c);
      const request: PopcountGemmRequest = { a, aFirst: 0, aCount: 37, b: a, bFirst: 0, bCount: 37, termGroups: groups, strictUpper: true };
      const naive = naivePlanes(a);
      const expected = await ref.run({ ...request, a: naive, b: naive });
      expect(neededMismatches(request, expected, await gemm.run(request))).toEqual([]);
      // The fused program is the one that ran (its cache key joins the fused terms with '|').
      expect(gemm.compiledPrograms.some((key) => key.startsWith('tally2') && key.includes('1.2|2.1'))).toBe(fused[1]);
    } finally {
      await gemm.close();
    }
  });

  it('waits for rows still being written, over several staging pieces', async () => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      // 2^19 fields: 128 KiB a code row, 128 rows a 16 MiB staging piece; 260 rows, written only once rowsReady asks.
      const c: CodeRowCase = { name: 'long rows', numVectors: 260, numRowsReal: 260, numField: 1 << 19, extraBytes: 0, bitsOfCode: KING_BITS, numPlanes: 4 };
      const final = codeRowMatrix(31, c);
      const finalRows = final.codeRows;
      if (finalRows === undefined || finalRows === null) throw new Error('no code rows');
      const arrivingBytes = new Uint8Array(new SharedArrayBuffer(finalRows.bytes.length));
      const arriving: PlaneMatrix = { ...final, codeRows: { ...finalRows, bytes: arrivingBytes } };
      let written = 0;
      const rowsReady = async (rowEnd: number): Promise<void> => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const end = Math.min(rowEnd, c.numRowsReal);
        if (end > written) arrivingBytes.set(finalRows.bytes.subarray(written * finalRows.bytesPerRow, end * finalRows.bytesPerRow), written * finalRows.bytesPerRow);
        written = Math.max(written, end);
      };
      const sums = await gemm.vectorSums({ planes: arriving, countPlanes: [0], maskPlane: 3, rowsReady });
      const expected = await ref.vectorSums({ planes: naivePlanes(final), countPlanes: [0], maskPlane: 3 });
      expect(written).toBe(c.numRowsReal);
      expect(Array.from(sums.sums)).toEqual(Array.from(expected.sums));
      expect(Array.from(sums.counts)).toEqual(Array.from(expected.counts));
    } finally {
      await gemm.close();
    }
  });
});
