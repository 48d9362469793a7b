// The popcount GEMM's planeWordRanges (contract.ts): on planes that are zero outside their ranges every kernel set
// gives the tallies of the plain definition; the kernels that honour the ranges (ref, native AVX-512) count exactly
// the words where a term's two ranges meet, which bits left outside them show; webgpu's u8 kernels sweep each group's
// window of them (groupWordWindow).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlaneWordRange, PopcountGemm, PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { loadNativePopcountKernel } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { createPopcountGemmWasm } from '../../src/mgemm/kernels/wasm/popcountGemmWasm.js';
import { createPopcountGemmWebgpu } from '../../src/mgemm/kernels/webgpu/openWebgpu.js';
import { groupWordWindow } from '../../src/mgemm/kernels/webgpu/plan/requestPlanner.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { naiveTallies, neededMismatches, planesFromFieldBits, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';

const NUM_PLANES = 4;
const NUM_FIELD = 1000;
/** Word ranges of the 32 words of 1000 fields: odd bounds, a plane without range, an empty one. */
const RANGES: readonly (PlaneWordRange | null)[] = [[0, 16], [15, 32], null, [9, 9]];
const TERM_GROUPS: readonly TermGroup[] = [[[0, 0]], [[0, 1]], [[1, 1], [2, 0]], [[2, 2]], [[3, 1], [1, 2]], [[2, 1]]];

/** `bits` with every field outside its plane's range cleared (what PlaneLayout.planeFieldRanges leaves). */
function maskedToRanges(bits: FieldBits): FieldBits {
  return bits.map((planes) => planes.map((fields, plane) => {
    const range = RANGES[plane];
    return fields.map((bit, field) => (range === null || (field >= 32 * range[0] && field < 32 * range[1]) ? bit : 0));
  }));
}

/** A request over `bits` (a: rows 1..41, b: rows 0..36 of another set) with RANGES. */
function requestOf(aBits: FieldBits, bBits: FieldBits, strictUpper: boolean, termGroups: readonly TermGroup[] = TERM_GROUPS): PopcountGemmRequest {
  const a = planesFromFieldBits(aBits, NUM_PLANES, NUM_FIELD, true);
  const b = strictUpper ? a : planesFromFieldBits(bBits, NUM_PLANES, NUM_FIELD, true);
  return {
    a, aFirst: 1, aCount: 40, b, bFirst: strictUpper ? 1 : 0, bCount: strictUpper ? 40 : 37, termGroups, strictUpper, planeWordRanges: RANGES,
  };
}

const random = seededRandom(27);
const aBits = randomFieldBits(random, 41, NUM_PLANES, NUM_FIELD);
const bBits = randomFieldBits(random, 37, NUM_PLANES, NUM_FIELD, 0.7);
const native = loadNativePopcountKernel();

const gate = await webgpuGate();

const KERNEL_SETS: { name: string; honoursRanges: boolean; open: () => Promise<PopcountGemm> }[] = [
  { name: 'ref', honoursRanges: true, open: () => Promise.resolve(new PopcountGemmRef()) },
  { name: 'wasm', honoursRanges: false, open: () => createPopcountGemmWasm({ numThreads: 2, microkernel: 'wasm' }) },
  ...(native.available ? [{ name: 'native', honoursRanges: true, open: () => createPopcountGemmWasm({ numThreads: 2, microkernel: 'native' }) }] : []),
];

/**
 * Groups the u8 kernels take as one GEMM each (a product of plane sums, kernelChoice.ts factorGroup; TERM_GROUPS' others
 * are sums of a GEMM per term): they sweep each GEMM's words widened to whole K units (groupWordWindow), so only zero
 * planes there give the plain tallies.
 */
const FACTORED_GROUPS: readonly TermGroup[] = [[[0, 0]], [[0, 1]], [[1, 1]], [[2, 2]], [[3, 1]], [[2, 1]], [[0, 1], [2, 1]], [[3, 3]]];

/** With 64 KiB expansions K is cut into 8 slabs of 4 words, which the windows cut again. */
const U8_KERNEL_SETS: { name: string; open: () => Promise<PopcountGemm> }[] = gate.available ? [
  { name: 'webgpu u8 dot4', open: () => createPopcountGemmWebgpu({ kernel: 'dot4' }) },
  { name: 'webgpu u8 dot4, K slabs', open: () => createPopcountGemmWebgpu({ kernel: 'dot4', u8ExpansionBytes: 1 << 16 }) },
] : [];

describe.each(KERNEL_SETS)('planeWordRanges on the $name kernel set', ({ open }) => {
  let gemm: PopcountGemm;
  beforeAll(async () => {
    gemm = await open();
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each([false, true])('planes zero outside their ranges: the plain tallies (strictUpper %s)', async (strictUpper) => {
    const [a, b] = [maskedToRanges(aBits), maskedToRanges(bBits)];
    const request = requestOf(a, b, strictUpper);
    const expected = naiveTallies(a, strictUpper ? a : b, request);
    expect(neededMismatches(request, expected, await gemm.run(request))).toEqual([]);
  });

});

describe.each(U8_KERNEL_SETS)('planeWordRanges on the $name kernel set (per group windows)', ({ open }) => {
  let gemm: PopcountGemm;
  beforeAll(async () => {
    gemm = await open();
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each([false, true])('planes zero outside their ranges: the plain tallies (strictUpper %s)', async (strictUpper) => {
    const [a, b] = [maskedToRanges(aBits), maskedToRanges(bBits)];
    const request = requestOf(a, b, strictUpper, FACTORED_GROUPS);
    const expected = naiveTallies(a, strictUpper ? a : b, request);
    expect(neededMismatches(request, expected, await gemm.run(request))).toEqual([]);
  });

  it.each([false, true])('groups that do not factor, each a sum of GEMMs into its output: the plain tallies (strictUpper %s)', async (strictUpper) => {
    const [a, b] = [maskedToRanges(aBits), maskedToRanges(bBits)];
    const request = requestOf(a, b, strictUpper, TERM_GROUPS);
    const expected = naiveTallies(a, strictUpper ? a : b, request);
    expect(neededMismatches(request, expected, await gemm.run(request))).toEqual([]);
  });
});

describe.each(KERNEL_SETS.filter((set) => set.honoursRanges))('planeWordRanges honoured by the $name kernel set', ({ open }) => {
  let gemm: PopcountGemm;
  beforeAll(async () => {
    gemm = await open();
  });
  afterAll(async () => {
    await gemm.close();
  });

  it('bits outside the ranges are not counted', async () => {
    const request = requestOf(aBits, bBits, false);
    // Each term counts the fields of the words where both its planes' ranges hold.
    const expected = TERM_GROUPS.map((group) => {
      const out = new Uint32Array(request.aCount * request.bCount);
      for (let r = 0; r < request.aCount; r++) {
        for (let c = 0; c < request.bCount; c++) {
          let sum = 0;
          for (const [pa, pb] of group) {
            const [ra, rb] = [RANGES[pa] ?? [0, 32], RANGES[pb] ?? [0, 32]];
            const [first, end] = [32 * Math.max(ra[0], rb[0]), Math.min(NUM_FIELD, 32 * Math.min(ra[1], rb[1]))];
            for (let f = first; f < end; f++) sum += aBits[request.aFirst + r][pa][f] * bBits[request.bFirst + c][pb][f];
          }
          out[r * request.bCount + c] = sum;
        }
      }
      return out;
    });
    const actual = await gemm.run(request);
    expect(neededMismatches(request, expected, actual)).toEqual([]);
    // The ranges did cut bits here: the plain tallies differ.
    expect(neededMismatches(request, naiveTallies(aBits, bBits, request), actual)).not.toEqual([]);
  });
});

describe('u8 GEMM windows (webgpu requestPlanner.ts groupWordWindow)', () => {
  it('each group sweeps the words where its terms\' planes meet, widened to 4-word units; a group with none keeps one unit', () => {
    const request = requestOf(aBits, bBits, false);
    const windows = TERM_GROUPS.map((group) => groupWordWindow(request, group));
    // [0, 16]; [15, 32] ∩ [0, 16] = [15, 16] → [12, 16]; [15, 32] ∪ every word; every word; [9, 9] is empty, [15, 32] ∩ all
    // → [12, 32]; every word ∩ [15, 32] → [12, 32].
    expect(windows).toEqual([{ first: 0, end: 16 }, { first: 12, end: 16 }, { first: 0, end: 32 }, { first: 0, end: 32 }, { first: 12, end: 32 }, { first: 12, end: 32 }]);
    expect(groupWordWindow({ ...request, planeWordRanges: [[0, 4], [20, 30]] }, [[0, 1]])).toEqual({ first: 0, end: 4 });
    expect(groupWordWindow({ ...request, planeWordRanges: null }, [[3, 3]])).toEqual({ first: 0, end: 32 });
  });
});

describe('planeWordRanges checks', () => {
  it('refuses a range past the plane', async () => {
    const request = requestOf(aBits, bBits, false);
    await expect(new PopcountGemmRef().run({ ...request, planeWordRanges: [[0, 33]] })).rejects.toThrow(/planeWordRanges\[0\] = \[0, 33\)/);
  });
});
