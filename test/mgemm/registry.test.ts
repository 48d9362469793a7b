// Conformance: every CPU kernel set the registry lists computes the per-field tally definition.

import { describe, expect, it } from 'vitest';
import { CPU_BACKEND_NAMES, createPopcountGemm, type PopcountGemmRequest } from '../../src/mgemm/index.js';
import { CCC_DENSE_TERMS, naiveTallies, neededEntries, planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

describe.each(CPU_BACKEND_NAMES)('kernel set %s', (backend) => {
  it.each([false, true])('matches the per-field tallies (strictUpper %s)', async (strictUpper) => {
    const numField = 203;
    const bits = randomFieldBits(seededRandom(5), 30, 2, numField);
    const planes = planesFromFieldBits(bits, 2, numField, true);
    const request: PopcountGemmRequest = {
      a: planes,
      aFirst: 3,
      aCount: 21,
      b: planes,
      bFirst: strictUpper ? 3 : 4,
      bCount: strictUpper ? 21 : 26,
      termGroups: [CCC_DENSE_TERMS, [[1, 1]]],
      strictUpper,
    };
    const gemm = await createPopcountGemm({ backend, numThreads: 2 });
    try {
      expect(neededEntries(request, await gemm.run(request))).toEqual(neededEntries(request, naiveTallies(bits, bits, request)));
    } finally {
      await gemm.close();
    }
  });

  it('reports how many threads it computes with', async () => {
    const gemm = await createPopcountGemm({ backend, numThreads: 2 });
    expect(gemm.numThreads).toBe(backend === 'ref' ? 1 : 2);
    await gemm.close();
  });
});
