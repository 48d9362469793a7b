// The wasm SIMD min-plus kernels give the reference kernels' bits on real (non-integer) values: ragged rows, columns
// and fields (none a multiple of a tile or vector width), several field, row and column blocks, strictUpper, every
// 3-way operand order, both precisions; −0.0 inputs count as +0 in every kernel; the pooled kernel sets (wasm and
// blocked JS) give the reference bits, and the registry's `cpu` picks wasm.
import { describe, expect, it } from 'vitest';
import {
  allocatePlaneMatrix, createPopcountGemm, minPlusWasmName, pairMinOrder, realValuesOf, valueBits, type PlaneMatrix,
  type RealValues, type ValuePrecision,
} from '../../src/mgemm/index.js';
import { KC, minPlus2Blocked, minPlus2Reference, minPlus3Blocked, minPlus3Reference, type MinPlus2Tile, type MinPlus3Tile } from '../../src/mgemm/kernels/minplus/minPlusKernels.js';
import { KC_FIELDS, MC_ROWS, NC_COLS_MAX } from '../../src/mgemm/kernels/minplus/minPlusBlockSizes.js';
import { runMinPlus2Wasm, runMinPlus3Wasm } from '../../src/mgemm/kernels/minplus/minPlusWasmLoops.js';
import { loadMinPlusModule, MinPlusWasmInstance } from '../../src/mgemm/kernels/minplus/minPlusWasmModule.js';
import { MinPlusGemm } from '../../src/mgemm/kernels/minplus/minPlusGemm.js';

interface RealMatrix { readonly planes: PlaneMatrix; readonly view: RealValues }

/**
 * Values in [0, 100) with every mantissa bit random (two LCG draws per value), rounded to the precision: sums of a
 * few hundred such values round in either precision, so a kernel that changed the order of additions would fail.
 * (Values of one 32-bit draw would sum exactly in double and could not tell orders apart.)
 */
function fullMantissaValues(count: number, seed: number, precision: ValuePrecision): Float64Array {
  const out = new Float64Array(count);
  let state = seed >>> 0;
  const next = (): number => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  for (let e = 0; e < count; e++) {
    const value = ((next() >>> 11) * 2 ** 32 + next()) / 2 ** 53 * 100;
    out[e] = precision === 'single' ? Math.fround(value) : value;
  }
  return out;
}

function realMatrix(numVectors: number, numField: number, precision: ValuePrecision, seed: number): RealMatrix {
  const planes = allocatePlaneMatrix(numVectors, valueBits(precision), numField);
  const view = realValuesOf(planes, precision);
  const values = fullMantissaValues(numVectors * numField, seed, precision);
  for (let v = 0; v < numVectors; v++) view.values.set(values.subarray(v * numField, (v + 1) * numField), v * view.rowStride);
  return { planes, view };
}

const outOf = (precision: ValuePrecision, n: number) => (precision === 'double' ? new Float64Array(n) : new Float32Array(n));
/** The bytes of a sum array: equal bytes are equal bits (−0 ≠ +0, unlike a numeric comparison). */
const bytesOf = (sums: Float64Array | Float32Array) => new Uint8Array(sums.buffer, sums.byteOffset, sums.byteLength);

async function wasmInstance(): Promise<MinPlusWasmInstance> {
  const probe = await loadMinPlusModule();
  if (!probe.available) throw new Error(probe.reason);
  return MinPlusWasmInstance.create(probe.module);
}

describe('wasm min-plus kernels = reference kernels, bit for bit', () => {
  for (const precision of ['double', 'single'] as const) {
    // Fields: three field blocks, the last ragged; rows past one MC block; columns not a multiple of 4 or 8.
    const shapes = [
      { numRows: 11, numCols: 9, numField: 2 * KC_FIELDS + 37 },
      { numRows: MC_ROWS + 13, numCols: 21, numField: 67 },
      { numRows: 5, numCols: NC_COLS_MAX + 11, numField: 3 },
      { numRows: 1, numCols: 1, numField: 1 },
    ];
    for (const { numRows, numCols, numField } of shapes) {
      it(`2-way ${precision}, ${numRows} × ${numCols}, nf ${numField}`, async () => {
        const instance = await wasmInstance();
        const a = realMatrix(numRows + 3, numField, precision, 11);
        const b = realMatrix(numCols + 2, numField, precision, 12);
        const tile = { a: a.view, aFirst: 2, b: b.view, bFirst: 1, bCount: numCols, numField, rowFirst: 1, rowEnd: numRows, strictUpper: false };
        const want = outOf(precision, numRows * numCols);
        const got = outOf(precision, numRows * numCols);
        minPlus2Reference({ ...tile, out: want });
        runMinPlus2Wasm(instance, { ...tile, out: got });
        expect(bytesOf(got.subarray(numCols))).toEqual(bytesOf(want.subarray(numCols)));
        // Sums of non-integer values round: summed backwards, some would differ, so only field order passes.
        if (numField > 100) {
          const backwards = outOf(precision, numRows * numCols);
          for (let r = 1; r < numRows; r++) {
            for (let c = 0; c < numCols; c++) {
              let s = 0;
              for (let f = numField - 1; f >= 0; f--) {
                s += Math.min(a.view.values[(2 + r) * a.view.rowStride + f], b.view.values[(1 + c) * b.view.rowStride + f]);
                if (precision === 'single') s = Math.fround(s);
              }
              backwards[r * numCols + c] = s;
            }
          }
          expect(bytesOf(backwards.subarray(numCols))).not.toEqual(bytesOf(got.subarray(numCols)));
        }
      });
    }

    it(`2-way ${precision} strictUpper: every entry above the diagonal, tasks starting mid-matrix`, async () => {
      const instance = await wasmInstance();
      const n = 37, numField = KC_FIELDS + 5;
      const a = realMatrix(n, numField, precision, 13);
      for (const [rowFirst, rowEnd] of [[0, 37], [8, 20], [33, 37]]) {
        const tile = { a: a.view, aFirst: 0, b: a.view, bFirst: 0, bCount: n, numField, rowFirst, rowEnd, strictUpper: true };
        const want = outOf(precision, n * n);
        const got = outOf(precision, n * n);
        minPlus2Reference({ ...tile, out: want });
        runMinPlus2Wasm(instance, { ...tile, out: got });
        for (let r = rowFirst; r < rowEnd; r++) for (let c = r + 1; c < n; c++) expect(got[r * n + c]).toBe(want[r * n + c]);
      }
    });

    for (const blockIndices of [undefined, [2, 0, 1], [1, 1, 0], [0, 2, 1]] as const) {
      for (const { numRows, numCols, numField } of [{ numRows: 10, numCols: 11, numField: KC_FIELDS + 91 }, { numRows: MC_ROWS + 6, numCols: 5, numField: 13 }]) {
        it(`3-way ${precision}, ${numRows} × ${numCols}, nf ${numField}, order ${String(pairMinOrder(blockIndices))}`, async () => {
          const instance = await wasmInstance();
          const x = realMatrix(numRows + 1, numField, precision, 14);
          const z = realMatrix(numCols + 3, numField, precision, 15);
          const tile = {
            x: x.view, xFirst: 1, y: z.view, yRow: 0, z: z.view, zFirst: 3, zCount: numCols, numField, rowFirst: 0, rowEnd: numRows,
            order: pairMinOrder(blockIndices),
          };
          const want = outOf(precision, numRows * numCols);
          const got = outOf(precision, numRows * numCols);
          minPlus3Reference({ ...tile, out: want });
          runMinPlus3Wasm(instance, { ...tile, out: got });
          expect(bytesOf(got)).toEqual(bytesOf(want));
        });
      }
    }
  }
});

describe('−0.0 inputs', () => {
  // The input readers accept −0.0 (it is ≥ 0). Math.min and wasm `pmin` may give either sign for a zero min; every
  // kernel must give the bits it gives with +0.0 in its place.
  for (const precision of ['double', 'single'] as const) {
    it(`count as +0 in the reference, JS and wasm kernels (${precision})`, async () => {
      const instance = await wasmInstance();
      const numVectors = 9, numField = 45;
      const withNegativeZeros = realMatrix(numVectors, numField, precision, 16);
      const withPositiveZeros = realMatrix(numVectors, numField, precision, 16);
      for (let v = 0; v < numVectors; v++) {
        for (let f = 0; f < numField; f++) {
          // Zeros in most fields of some vectors, of mixed signs, so that whole terms and whole sums are zero.
          if ((v * 7 + f * 3) % 5 < 3 || v === 4) {
            withNegativeZeros.view.values[v * withNegativeZeros.view.rowStride + f] = (v + f) % 2 === 0 ? -0 : 0;
            withPositiveZeros.view.values[v * withPositiveZeros.view.rowStride + f] = 0;
          }
        }
      }
      const pair = (m: RealMatrix): Omit<MinPlus2Tile, 'out'> => ({ a: m.view, aFirst: 0, b: m.view, bFirst: 0, bCount: numVectors, numField, rowFirst: 0, rowEnd: numVectors, strictUpper: false });
      const want2 = outOf(precision, numVectors * numVectors);
      minPlus2Reference({ ...pair(withPositiveZeros), out: want2 });
      expect(want2[4 * numVectors + 4]).toBe(0);
      for (const run of [minPlus2Reference, minPlus2Blocked, (t: MinPlus2Tile) => runMinPlus2Wasm(instance, t)]) {
        const got = outOf(precision, numVectors * numVectors);
        run({ ...pair(withNegativeZeros), out: got });
        expect(bytesOf(got)).toEqual(bytesOf(want2));
      }
      const triple = (m: RealMatrix): Omit<MinPlus3Tile, 'out'> => ({
        x: m.view, xFirst: 0, y: m.view, yRow: 4, z: m.view, zFirst: 0, zCount: numVectors, numField, rowFirst: 0, rowEnd: numVectors, order: pairMinOrder([1, 0, 2]),
      });
      const want3 = outOf(precision, numVectors * numVectors);
      minPlus3Reference({ ...triple(withPositiveZeros), out: want3 });
      for (const run of [minPlus3Reference, (t: MinPlus3Tile) => minPlus3Blocked(t, new Float64Array(KC)), (t: MinPlus3Tile) => runMinPlus3Wasm(instance, t)]) {
        const got = outOf(precision, numVectors * numVectors);
        run({ ...triple(withNegativeZeros), out: got });
        expect(bytesOf(got)).toEqual(bytesOf(want3));
      }
    });
  }
});

describe('the min-plus kernel sets', () => {
  it('cpu picks wasm SIMD here and names it', async () => {
    expect((await loadMinPlusModule()).available).toBe(true);
    for (const precision of ['double', 'single'] as const) {
      const cpu = await createPopcountGemm({ backend: 'cpu', realOperands: { precision, numField: 8 }, numThreads: 1 });
      try {
        expect(cpu.name).toBe(minPlusWasmName(precision));
      } finally {
        await cpu.close();
      }
    }
  });

  for (const kernel of ['wasm', 'blocked'] as const) {
    it(`${kernel} on 2 worker threads gives the reference bits (2-way and 3-way, both precisions)`, async () => {
      for (const precision of ['double', 'single'] as const) {
        const numField = KC_FIELDS + 3;
        const operands = { precision, numField };
        const pooled = await MinPlusGemm.create({ operands, kernel, numThreads: 2 });
        const ref = await MinPlusGemm.create({ operands, kernel: 'reference', numThreads: 1 });
        try {
          const a = realMatrix(23, numField, precision, 17).planes;
          const request = { a, aFirst: 0, aCount: 23, b: a, bFirst: 0, bCount: 23, strictUpper: false, termGroups: [] };
          expect((await pooled.run(request)).map(bytesOfWords)).toEqual((await ref.run(request)).map(bytesOfWords));
          const request3 = {
            x: a, y: a, z: a, blockIndices: [2, 0, 1] as const, termGroups: [], planePairs: [],
            slices: [{ xFirst: 0, xCount: 21, yRow: 5, zFirst: 2, zCount: 19 }, { xFirst: 3, xCount: 9, yRow: 1, zFirst: 0, zCount: 23 }],
          };
          expect((await pooled.run3(request3)).map((g) => g.map(bytesOfWords))).toEqual((await ref.run3(request3)).map((g) => g.map(bytesOfWords)));
        } finally {
          await pooled.close();
          await ref.close();
        }
      }
    });
  }
});

const bytesOfWords = (words: Uint32Array) => new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
