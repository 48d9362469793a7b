// One-term groups with a mostly-ones plane (KING's HET·PRESENT and PRESENT·HET), which the native kernel computes as the
// dense side's popcount less a sparse correction over the other side's zero fields (src/complementTerms.cc): forced
// on ('always'), off ('never') and by its cost model ('auto') against the reference kernel (and the naive definition
// for small shapes), on ragged rows, columns and fields (not multiples of 64 or 512), no missing calls, many missing
// calls (byte counters widened several times), a vector with every call missing, plane word ranges, strictUpper
// diagonal panels cut at odd rows, and outputs at several alignments. Cells a task must not touch keep their sentinel.
import { describe, expect, it } from 'vitest';
import type { PlaneWordRange, PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import type { NativeComplementChoice } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { kernelCaseOf, nativeStatus, panelsOf, panelMismatches, sentinelOutputs, type KernelCase, type KernelCaseShape } from './kernelCases.js';
import { naiveTallies, neededMismatches, seededRandom, type FieldBits } from './planeFixtures.js';


/** KING's planes (kingCounts.ts): HET, HOM1, HOM2, PRESENT; all 0 for a missing call. */
const [HET, HOM1, HOM2, PRESENT] = [0, 1, 2, 3];
const KING_GROUPS: readonly TermGroup[] = [[[HET, HET]], [[HOM1, HOM2], [HOM2, HOM1]], [[HET, PRESENT]], [[PRESENT, HET]]];
/** Both orders of the complement term alone, and one beside a two-term group that must stay dense. */
const PRESENT_GROUPS: readonly TermGroup[] = [[[PRESENT, HET]], [[HET, PRESENT]], [[PRESENT, PRESENT]], [[HET, PRESENT], [PRESENT, HET]]];

/** Calls with probability `missing` of being missing; vectors in `allMissing` have every call missing. */
function kingBits(random: () => number, numVectors: number, numField: number, missing: number, allMissing: readonly number[] = []): FieldBits {
  return Array.from({ length: numVectors }, (_, vector) => {
    const planes = Array.from({ length: 4 }, () => new Array<number>(numField).fill(0));
    if (allMissing.includes(vector)) return planes;
    for (let f = 0; f < numField; f++) {
      if (random() < missing) continue;
      const call = random();
      planes[call < 0.35 ? HET : call < 0.7 ? HOM1 : HOM2][f] = 1;
      planes[PRESENT][f] = 1;
    }
    return planes;
  });
}

/** A KING-planed case: 4 planes, KING's groups unless given. */
function caseOf(shape: Omit<KernelCaseShape, 'numPlanes' | 'termGroups'> & { readonly termGroups?: readonly TermGroup[] }): KernelCase {
  return kernelCaseOf({ ...shape, numPlanes: 4, termGroups: shape.termGroups ?? KING_GROUPS });
}

/** `bits` with every field of `plane` outside words [first, end) cleared (the data contract of planeWordRanges). */
function clearedOutside(bits: FieldBits, plane: number, [first, end]: PlaneWordRange): FieldBits {
  for (const planes of bits) planes[plane].forEach((_, f) => { if (f < 32 * first || f >= 32 * end) planes[plane][f] = 0; });
  return bits;
}

const random = seededRandom(2626);
const CASES: KernelCase[] = [
  caseOf({
    name: '1 % missing, 150 × 130 of 5003 fields', aBits: kingBits(random, 160, 5003, 0.01), bBits: kingBits(random, 133, 5003, 0.01),
    numField: 5003, aFirst: 7, aCount: 150, bFirst: 3, bCount: 130, cuts: [37, 100],
  }),
  caseOf({
    name: '1 % missing, strictUpper diagonal 200 × 200 of 3001 fields', aBits: kingBits(random, 203, 3001, 0.01), bBits: null,
    numField: 3001, aFirst: 3, aCount: 200, bFirst: 3, bCount: 200, cuts: [1, 70, 131],
  }),
  caseOf({
    name: 'no missing calls, 70 × 90 of 1537 fields', aBits: kingBits(random, 70, 1537, 0), bBits: kingBits(random, 90, 1537, 0),
    numField: 1537, aFirst: 0, aCount: 70, bFirst: 0, bCount: 90, cuts: [64],
  }),
  caseOf({
    name: '30 % missing (byte counters widened), 80 × 75 of 4100 fields', aBits: kingBits(random, 80, 4100, 0.3),
    bBits: kingBits(random, 75, 4100, 0.3), numField: 4100, aFirst: 0, aCount: 80, bFirst: 0, bCount: 75, cuts: [33],
  }),
  caseOf({
    name: 'a vector with every call missing on each side, 66 × 67 of 2049 fields', aBits: kingBits(random, 66, 2049, 0.02, [5]),
    bBits: kingBits(random, 67, 2049, 0.02, [7, 66]), numField: 2049, aFirst: 0, aCount: 66, bFirst: 0, bCount: 67,
    termGroups: PRESENT_GROUPS,
  }),
  caseOf({
    name: 'strictUpper with a vector all missing, 97 × 97 of 700 fields', aBits: kingBits(random, 97, 700, 0.05, [40]), bBits: null,
    numField: 700, aFirst: 0, aCount: 97, bFirst: 0, bCount: 97, termGroups: PRESENT_GROUPS, cuts: [3, 64], naive: true,
  }),
  caseOf({
    name: 'plane word ranges (HET words [3, 40), PRESENT words [9, 60)), 70 × 70 of 2000 fields',
    aBits: clearedOutside(clearedOutside(kingBits(random, 70, 2000, 0.02), HET, [3, 40]), PRESENT, [9, 60]),
    bBits: clearedOutside(clearedOutside(kingBits(random, 70, 2000, 0.02), HET, [3, 40]), PRESENT, [9, 60]),
    numField: 2000, aFirst: 0, aCount: 70, bFirst: 0, bCount: 70, planeWordRanges: [[3, 40], null, null, [9, 60]], cuts: [20],
  }),
  caseOf({
    name: 'planes longer than a K block (70,001 fields), 20 × 70', aBits: kingBits(random, 20, 70001, 0.01),
    bBits: kingBits(random, 70, 70001, 0.01), numField: 70001, aFirst: 0, aCount: 20, bFirst: 0, bCount: 70,
  }),
  caseOf({
    name: 'small: 3 × 5 of 33 fields', aBits: kingBits(random, 4, 33, 0.1), bBits: kingBits(random, 5, 33, 0.1),
    numField: 33, aFirst: 1, aCount: 3, bFirst: 0, bCount: 5, naive: true,
  }),
  caseOf({
    name: 'small: 1 × 1 of 512 fields', aBits: kingBits(random, 1, 512, 0.1), bBits: kingBits(random, 1, 512, 0.1),
    numField: 512, aFirst: 0, aCount: 1, bFirst: 0, bCount: 1, naive: true,
  }),
];

const CHOICES: readonly NativeComplementChoice[] = ['always', 'never', 'auto'];
/** Operand ids of the tests' tasks: distinct per matrix, as operandIdOf gives them. */
let nextOperandId = 1;

describe.runIf(nativeStatus.available)('native complement terms', () => {
  const kernel = nativeStatus.available ? nativeStatus.kernel : null;
  const ref = new PopcountGemmRef();

  it.each(CASES)('$name: every choice (always, never, auto) equals the reference, untouched cells kept', async (c) => {
    const { request } = c;
    const expected = await ref.run(request);
    expect(expected.some((out) => out.some((tally) => tally !== 0))).toBe(true);
    if (c.bits !== null) expect(neededMismatches(request, naiveTallies(c.bits.a, c.bits.b, request), expected)).toEqual([]);
    // Named operands: the kernel may keep their derived forms across the panels (a fresh pair of ids per case).
    const operandIds = { a: nextOperandId, b: request.b === request.a ? nextOperandId : nextOperandId + 1 };
    nextOperandId += 2;
    for (const complement of CHOICES) {
      for (const [layout, named] of [['horizontal', false], ['vertical', false], ['horizontal', true]] as const) {
        for (const shiftWords of [0, 5]) {
          for (const panel of panelsOf(request, c.cuts)) {
            const outputs = sentinelOutputs(request, shiftWords);
            kernel?.runTask({ request, panel, outputs, operandIds: named ? operandIds : null }, { layout, complement });
            const context = `${complement}, ${layout}, operands named ${named}, outputs shifted ${shiftWords}, rows [${panel.rowBegin}, ${panel.rowEnd})`;
            expect(panelMismatches(request, panel, outputs, expected), context).toEqual([]);
          }
        }
      }
    }
  });

  it('keeps derived forms per operand id: two matrices written in turn into the same memory, each equal to the reference', async () => {
    const [first, second] = [kingBits(random, 140, 4001, 0.01), kingBits(random, 140, 4001, 0.01)].map((bits) => caseOf({
      name: 'one buffer', aBits: bits, bBits: null, numField: 4001, aFirst: 0, aCount: 140, bFirst: 0, bCount: 140, cuts: [70],
    }).request);
    // One matrix object over one buffer: only the ids tell its contents apart (forms keyed by address would go stale).
    const live = { ...first.a, words: new Uint32Array(new SharedArrayBuffer(first.a.words.byteLength)) };
    const request: PopcountGemmRequest = { ...first, a: live, b: live };
    for (const k of [0, 1, 0, 1]) {
      const written = [first, second][k];
      live.words.set(written.a.words);
      const id = nextOperandId++;
      const outputs = sentinelOutputs(request, 0);
      for (const panel of panelsOf(request, [70])) kernel?.runTask({ request, panel, outputs, operandIds: { a: id, b: id } }, { complement: 'always' });
      expect(neededMismatches(request, await ref.run(written), outputs), `matrix ${k}`).toEqual([]);
    }
  });

  it('refuses an unknown complement choice', () => {
    const [{ request }] = CASES;
    const outputs = sentinelOutputs(request, 0);
    const panel = { rowBegin: 0, rowEnd: 1, colBegin: 0 };
    expect(() => kernel?.runTask({ request, panel, outputs }, { complement: 'sometimes' as NativeComplementChoice })).toThrow(/options\.complement/);
  });
});
