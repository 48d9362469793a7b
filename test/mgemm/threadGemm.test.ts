// The CPU kernel set's GEMM opened on the calling thread from its plain data (PopcountGemm.threadKernel, openThreadGemm)
// against the naive tallies of the definition: both microkernels, strictUpper, plane word ranges, odd shapes, outputs
// reused dirty from call to call (they are overwritten).
import { describe, expect, it } from 'vitest';
import { createPopcountGemm, openThreadGemm, type PopcountGemmRequest, type TermGroup } from '../../src/mgemm/index.js';
import { AMX_MAX_KERNEL_THREADS, loadNativePopcountKernel } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { loadPopcountGemmModule } from '../../src/mgemm/kernels/wasm/wasmModule.js';
import { naiveTallies, neededMismatches, planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

const GROUPS: TermGroup[] = [[[1, 1], [0, 0]], [[2, 2]], [[0, 3]], [[3, 3]]];

const SHAPES = [
  { aFirst: 0, aCount: 16, bFirst: 0, bCount: 40, strictUpper: true, numField: 1000 },
  { aFirst: 5, aCount: 7, bFirst: 30, bCount: 33, strictUpper: false, numField: 77 },
  { aFirst: 12, aCount: 1, bFirst: 12, bCount: 1, strictUpper: true, numField: 31 },
  { aFirst: 3, aCount: 13, bFirst: 3, bCount: 57, strictUpper: true, numField: 130 },
] as const;

describe('openThreadGemm', () => {
  const native = loadNativePopcountKernel();
  const kernels = [
    { name: 'wasm', open: async () => openThreadGemm({ microkernel: 'wasm', module: await loadPopcountGemmModule(), amx: false }) },
    ...(native.available ? [true, false].map((amx) => ({
      name: `native (amx ${amx ? 'allowed' : 'not allowed'})`, open: async () => openThreadGemm({ microkernel: 'native', module: null, amx }),
    })) : []),
  ];
  for (const { name, open } of kernels) {
    it(`${name}: every shape equals the definition, outputs reused`, async () => {
      const gemm = await open();
      const random = seededRandom(7);
      const outputs = GROUPS.map(() => new Uint32Array(4096).fill(0xdeadbeef));
      for (const shape of SHAPES) {
        for (const planeWordRanges of [null, [null, [1, 3], null, [0, 2]] as const]) {
          const bits = randomFieldBits(random, 90, 4, shape.numField, 0.4);
          // A range may cut no bits: planes are zero outside theirs.
          for (const planeBits of bits) {
            for (const [p, range] of (planeWordRanges ?? []).entries()) {
              if (range !== null) planeBits[p] = planeBits[p].map((bit, f) => (f >> 5 >= range[0] && f >> 5 < range[1] ? bit : 0));
            }
          }
          const planes = planesFromFieldBits(bits, 4, shape.numField, false);
          const request: PopcountGemmRequest = { a: planes, b: planes, termGroups: GROUPS, planeWordRanges, ...shape };
          const views = outputs.map((out) => out.subarray(0, shape.aCount * shape.bCount));
          gemm.run(request, views);
          expect(neededMismatches(request, naiveTallies(bits, bits, request), views), `${JSON.stringify(shape)} ranges ${JSON.stringify(planeWordRanges)}`).toEqual([]);
        }
      }
    });
  }

  it('the cpu kernel set lends its microkernel, one thread or several; ref lends none', async () => {
    for (const numThreads of [1, 2, AMX_MAX_KERNEL_THREADS + 1]) {
      const gemm = await createPopcountGemm({ backend: 'cpu', numThreads });
      expect(gemm.threadKernel?.microkernel).toBe(native.available ? 'native' : 'wasm');
      // AMX only in sets of few threads, and the set's name says whether it may run.
      expect(gemm.threadKernel?.amx).toBe(numThreads <= AMX_MAX_KERNEL_THREADS);
      if (native.available) expect(gemm.name.endsWith('+amx')).toBe(numThreads <= AMX_MAX_KERNEL_THREADS && native.kernel.amxStatus().available);
      await gemm.close();
    }
    const ref = await createPopcountGemm({ backend: 'ref' });
    expect(ref.threadKernel).toBeUndefined();
  });
});
