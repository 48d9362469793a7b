// Two-term groups whose products share no bit (one-hot genotype planes: the distances' ibs0/ibs1, KING's ibs0), which
// the native kernel runs as one fused product after checking the planes on the operands: the CPU kernel sets against
// the reference kernel on one-hot planes, on planes disjoint in one operand only, on planes that overlap in a single
// field of two rows (where fusing would count a field once instead of twice), and with plane word ranges.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlaneWordRange, PopcountGemm, PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import { loadNativePopcountKernel } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWasm } from '../../src/mgemm/kernels/wasm/popcountGemmWasm.js';
import type { CpuMicrokernel } from '../../src/mgemm/kernels/wasm/workerProtocol.js';
import { neededMismatches, planesFromFieldBits, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';

/** Planes as the distances lay them out: HET, HOM1, HOM2, HOM (= HOM1 | HOM2); all 0 for a missing call. */
const [HET, HOM1, HOM2, HOM] = [0, 1, 2, 3];
const NUM_PLANES = 4;
const IBS_GROUPS: readonly TermGroup[] = [[[HET, HOM], [HOM, HET]], [[HOM1, HOM2], [HOM2, HOM1]]];
const KING_GROUPS: readonly TermGroup[] = [[[HET, HET]], [[HOM1, HOM2], [HOM2, HOM1]], [[HET, HOM]], [[HOM, HET]]];

/** One-hot genotype planes of random calls (a tenth missing). */
function genotypeBits(random: () => number, numVectors: number, numField: number): FieldBits {
  return Array.from({ length: numVectors }, () => {
    const planes = Array.from({ length: NUM_PLANES }, () => new Array<number>(numField).fill(0));
    for (let f = 0; f < numField; f++) {
      const call = random();
      if (call < 0.1) continue;
      const plane = call < 0.4 ? HET : call < 0.7 ? HOM1 : HOM2;
      planes[plane][f] = 1;
      if (plane !== HET) planes[HOM][f] = 1;
    }
    return planes;
  });
}

interface DisjointCase {
  readonly name: string;
  readonly numField: number;
  readonly count: number;
  readonly termGroups: readonly TermGroup[];
  readonly strictUpper: boolean;
  /** Which operand has one-hot planes; the other has independent random planes. */
  readonly oneHot: 'both' | 'a' | 'b';
  /** Set HOM1 and HOM2 together at this field of these vectors (of A and B): their pairs' products overlap there. */
  readonly overlapAt?: { readonly vectors: readonly number[]; readonly field: number };
  /** Words of HOM1 and HOM2 (both operands; their bits outside are cleared). */
  readonly homWords?: readonly [hom1: PlaneWordRange, hom2: PlaneWordRange];
}

function requestOf(c: DisjointCase): PopcountGemmRequest {
  const random = seededRandom(c.numField * 7 + c.count);
  const operandBits = (oneHot: boolean, numVectors: number): FieldBits => {
    const bits = oneHot ? genotypeBits(random, numVectors, c.numField) : randomFieldBits(random, numVectors, NUM_PLANES, c.numField);
    if (c.overlapAt !== undefined) {
      for (const vector of c.overlapAt.vectors) {
        bits[vector][HOM1][c.overlapAt.field] = 1;
        bits[vector][HOM2][c.overlapAt.field] = 1;
      }
    }
    c.homWords?.forEach(([first, end], k) => {
      const plane = [HOM1, HOM2][k];
      for (const vector of bits) vector[plane].forEach((_, f) => { if (f < 32 * first || f >= 32 * end) vector[plane][f] = 0; });
    });
    return bits;
  };
  const numVectors = c.count + 2;
  const a = planesFromFieldBits(operandBits(c.oneHot !== 'b', numVectors), NUM_PLANES, c.numField, true);
  const b = c.strictUpper ? a : planesFromFieldBits(operandBits(c.oneHot !== 'a', numVectors), NUM_PLANES, c.numField, true);
  const planeWordRanges = c.homWords === undefined ? null : [null, c.homWords[0], c.homWords[1], null];
  return { a, aFirst: 1, aCount: c.count, b, bFirst: c.strictUpper ? 1 : 2, bCount: c.count, termGroups: c.termGroups, strictUpper: c.strictUpper, planeWordRanges };
}

const CASES: DisjointCase[] = [
  ...[false, true].flatMap((strictUpper) => [
    { name: 'ibs groups, one-hot planes', numField: 4099, count: 37, termGroups: IBS_GROUPS, strictUpper, oneHot: 'both' as const },
    { name: 'king groups, one-hot planes', numField: 1000, count: 41, termGroups: KING_GROUPS, strictUpper, oneHot: 'both' as const },
  ]),
  { name: 'ibs groups over several K blocks', numField: 2048 * 32 * 2 + 77, count: 9, termGroups: IBS_GROUPS, strictUpper: false, oneHot: 'both' },
  { name: 'one-hot in A only', numField: 515, count: 23, termGroups: IBS_GROUPS, strictUpper: false, oneHot: 'a' },
  { name: 'one-hot in B only', numField: 515, count: 23, termGroups: IBS_GROUPS, strictUpper: false, oneHot: 'b' },
  { name: 'one overlapping field of two rows', numField: 300, count: 19, termGroups: IBS_GROUPS, strictUpper: true, oneHot: 'both', overlapAt: { vectors: [7, 12], field: 131 } },
  { name: 'plane word ranges', numField: 2000, count: 21, termGroups: IBS_GROUPS, strictUpper: false, oneHot: 'both', homWords: [[3, 30], [20, 50]] },
];

const cpuHasVpopcntdq = process.arch === 'x64' && existsSync('/proc/cpuinfo') && /\bavx512_vpopcntdq\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
const nativeStatus = loadNativePopcountKernel();
if (cpuHasVpopcntdq && !nativeStatus.available) throw new Error(`the CPU has AVX512_VPOPCNTDQ but ${nativeStatus.reason}`);
const MICROKERNELS: CpuMicrokernel[] = ['wasm', ...(nativeStatus.available ? ['native' as const] : [])];

describe.each(MICROKERNELS)('%s kernels on disjoint term pairs', (microkernel) => {
  const ref = new PopcountGemmRef();
  let gemm: PopcountGemm;
  beforeAll(async () => {
    gemm = await createPopcountGemmWasm({ numThreads: 2, microkernel });
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each(CASES)('equals ref: $name, strictUpper $strictUpper', async (c) => {
    const request = requestOf(c);
    const [expected, actual] = [await ref.run(request), await gemm.run(request)];
    expect(expected.some((out) => out.some((tally) => tally !== 0))).toBe(true);
    expect(neededMismatches(request, expected, actual)).toEqual([]);
  });
});
