// The native kernel's layouts (options.layout: the horizontal 4×4 kernel, the vertical 12×32 one with packed
// operands, the AMX-INT8 one of 32×32 tiles where the CPU has AMX, and the choice between them) against the reference kernel and the naive definition: epistasis-shaped
// requests (class plane ranges, 8 one-term groups), ragged rows and columns, planes of 1–3 words and ranges starting at
// odd words, planes long enough for several K blocks, multi-term and fused disjoint groups, strictUpper diagonal panels
// cut at odd rows, and outputs at every alignment. Cells a task must not touch (other panels' rows, columns left of
// colBegin) keep their sentinel.
import { describe, expect, it } from 'vitest';
import type { PlaneWordRange, PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import type { NativeKernelLayout } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { cpuHasFlag, kernelCaseOf, nativeStatus, panelsOf, panelMismatches, sentinelOutputs, type KernelCase } from './kernelCases.js';
import { CCC_DENSE_TERMS, naiveTallies, neededMismatches, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';


/** Epistasis's planes per class (epistasisPlanes.ts): g = 0, g = 1, called; classes are field ranges. */
const EPI_PLANES = 6;
/** Per class c the four products g_x(i) ∧ g_y(j), x, y ∈ {0, 1}: epistasis's 2-way term groups. */
const EPI_GROUPS: readonly TermGroup[] = [0, 1].flatMap((c) => [0, 1].flatMap((x) => [0, 1].map((y): TermGroup => [[3 * c + x, 3 * c + y]])));

/** Genotype planes of `numControls` + `numCases` samples (a tenth missing), each class's planes zero outside it. */
function epistasisBits(random: () => number, numVectors: number, numControls: number, numCases: number): FieldBits {
  const numField = numControls + numCases;
  return Array.from({ length: numVectors }, () => {
    const planes = Array.from({ length: EPI_PLANES }, () => new Array<number>(numField).fill(0));
    for (let f = 0; f < numField; f++) {
      const call = random();
      if (call < 0.1) continue;
      const base = f < numControls ? 0 : 3;
      planes[base + 2][f] = 1;
      if (call < 0.45) planes[base][f] = 1;
      else if (call < 0.8) planes[base + 1][f] = 1;
    }
    return planes;
  });
}

/** The class ranges of epistasisBits in words: [0, ⌈controls/32⌉) and [⌊controls/32⌋, ⌈all/32⌉). */
function classWordRanges(numControls: number, numCases: number): PlaneWordRange[] {
  const controls: PlaneWordRange = [0, Math.ceil(numControls / 32)];
  const cases: PlaneWordRange = [Math.floor(numControls / 32), Math.ceil((numControls + numCases) / 32)];
  return [controls, controls, controls, cases, cases, cases];
}

/** Distances' one-hot planes HET, HOM1, HOM2, HOM (= HOM1 | HOM2); KING's groups, two of them fused disjoint pairs. */
const KING_GROUPS: readonly TermGroup[] = [[[0, 0]], [[1, 2], [2, 1]], [[0, 3]], [[3, 0]], [[1, 1], [2, 2]]];

function oneHotBits(random: () => number, numVectors: number, numField: number): FieldBits {
  return Array.from({ length: numVectors }, () => {
    const planes = Array.from({ length: 4 }, () => new Array<number>(numField).fill(0));
    for (let f = 0; f < numField; f++) {
      const call = random();
      if (call < 0.1) continue;
      const plane = call < 0.4 ? 0 : call < 0.7 ? 1 : 2;
      planes[plane][f] = 1;
      if (plane !== 0) planes[3][f] = 1;
    }
    return planes;
  });
}

/** `bits` with every field outside its plane's word range cleared (the data contract of planeWordRanges). */
function maskedToRanges(bits: FieldBits, ranges: readonly (PlaneWordRange | null)[]): FieldBits {
  return bits.map((planes) => planes.map((fields, plane) => {
    const range = ranges[plane];
    return fields.map((bit, field) => (range === null || (field >= 32 * range[0] && field < 32 * range[1]) ? bit : 0));
  }));
}

/** `bits` with plane `plane` cleared before field `first` (so that a plane word range starting there holds). */
function withoutFields(bits: FieldBits, plane: number, first: number): FieldBits {
  for (const planes of bits) planes[plane].fill(0, 0, first);
  return bits;
}

const SHORT_RANGES: readonly (PlaneWordRange | null)[] = [[3, 6], [1, 2], [5, 7], null];
const random = seededRandom(2712);
const CASES: KernelCase[] = [
  kernelCaseOf({
    name: 'epistasis 1000 + 1000 samples, 70 × 75', aBits: epistasisBits(random, 80, 1000, 1000), bBits: epistasisBits(random, 75, 1000, 1000),
    numPlanes: EPI_PLANES, numField: 2000, aFirst: 10, aCount: 70, bFirst: 0, bCount: 75, termGroups: EPI_GROUPS,
    planeWordRanges: classWordRanges(1000, 1000), cuts: [12, 37],
  }),
  kernelCaseOf({
    name: 'epistasis 1000 + 1000 samples, strictUpper diagonal 100 × 100', aBits: epistasisBits(random, 101, 1000, 1000), bBits: null,
    numPlanes: EPI_PLANES, numField: 2000, aFirst: 1, aCount: 100, bFirst: 1, bCount: 100, termGroups: EPI_GROUPS,
    planeWordRanges: classWordRanges(1000, 1000), cuts: [13, 50, 61],
  }),
  kernelCaseOf({
    name: 'epistasis 37 + 50 samples (planes of 2 words, cases from word 1), 13 × 33', aBits: epistasisBits(random, 16, 37, 50),
    bBits: epistasisBits(random, 40, 37, 50), numPlanes: EPI_PLANES, numField: 87, aFirst: 3, aCount: 13, bFirst: 7, bCount: 33,
    termGroups: EPI_GROUPS, planeWordRanges: classWordRanges(37, 50), naive: true,
  }),
  kernelCaseOf({
    name: 'epistasis 999 + 1001 samples, strictUpper 45 × 45 cut at odd rows', aBits: epistasisBits(random, 45, 999, 1001), bBits: null,
    numPlanes: EPI_PLANES, numField: 2000, aFirst: 0, aCount: 45, bFirst: 0, bCount: 45, termGroups: EPI_GROUPS,
    planeWordRanges: classWordRanges(999, 1001), cuts: [1, 7, 30],
  }),
  kernelCaseOf({
    name: 'epistasis 20 + 13 samples (1-word planes), 1 × 1', aBits: epistasisBits(random, 2, 20, 13), bBits: epistasisBits(random, 1, 20, 13),
    numPlanes: EPI_PLANES, numField: 33, aFirst: 1, aCount: 1, bFirst: 0, bCount: 1, termGroups: EPI_GROUPS,
    planeWordRanges: classWordRanges(20, 13), naive: true,
  }),
  kernelCaseOf({
    name: 'ranges of 1–3 words with odd starts, multi-term groups, 25 × 70', aBits: maskedToRanges(randomFieldBits(random, 25, 4, 300), SHORT_RANGES),
    bBits: maskedToRanges(randomFieldBits(random, 71, 4, 300, 0.7), SHORT_RANGES), numPlanes: 4, numField: 300, aFirst: 0, aCount: 25,
    bFirst: 1, bCount: 70, termGroups: [[[0, 0]], [[0, 1], [2, 3]], [[1, 1], [3, 0], [2, 2]], [[3, 3]]], planeWordRanges: SHORT_RANGES,
    cuts: [5], naive: true,
  }),
  kernelCaseOf({
    name: 'dense CCC group over several K blocks (20000 fields), 29 × 41', aBits: randomFieldBits(random, 29, 2, 20000),
    bBits: randomFieldBits(random, 41, 2, 20000), numPlanes: 2, numField: 20000, aFirst: 0, aCount: 29, bFirst: 0, bCount: 41,
    termGroups: [CCC_DENSE_TERMS, [[1, 0]]], cuts: [17],
  }),
  kernelCaseOf({
    name: 'dense CCC, strictUpper over several K blocks, 50 × 50', aBits: randomFieldBits(random, 52, 2, 9000), bBits: null,
    numPlanes: 2, numField: 9000, aFirst: 2, aCount: 50, bFirst: 2, bCount: 50, termGroups: [CCC_DENSE_TERMS], cuts: [11, 29],
  }),
  ...[false, true].map((strictUpper) => kernelCaseOf({
    name: `KING groups on one-hot planes (fused pairs), 40 × 40, strictUpper ${strictUpper}`, aBits: oneHotBits(random, 41, 1000),
    bBits: strictUpper ? null : oneHotBits(random, 41, 1000), numPlanes: 4, numField: 1000, aFirst: 1, aCount: 40,
    bFirst: strictUpper ? 1 : 0, bCount: 40, termGroups: KING_GROUPS, cuts: [9],
  })),
  kernelCaseOf({
    name: 'KING groups, fused pairs over several K blocks with ranges, 9 × 36', aBits: withoutFields(oneHotBits(random, 9, 40000), 2, 96),
    bBits: withoutFields(oneHotBits(random, 36, 40000), 2, 96), numPlanes: 4, numField: 40000, aFirst: 0, aCount: 9, bFirst: 0, bCount: 36,
    termGroups: KING_GROUPS, planeWordRanges: [null, [0, 1250], [3, 1250], null],
  }),
];

const amxStatus = nativeStatus.available ? nativeStatus.kernel.amxStatus() : null;
const cpuHasAmxInt8 = cpuHasFlag('amx_int8');
if (cpuHasAmxInt8 && amxStatus?.available === false) throw new Error(`the CPU has AMX-INT8 but ${amxStatus.reason}`);
/** The layouts this machine runs: amx only where the CPU has AMX-INT8 (and Linux allows it). */
const LAYOUTS: readonly NativeKernelLayout[] = ['horizontal', 'vertical', 'auto', ...(amxStatus?.available === true ? ['amx' as const] : [])];
const LAYOUT_NAMES = `${LAYOUTS.join(', ')}${amxStatus?.available === true ? '' : ' (amx needs AMX-INT8: not on this CPU)'}`;

describe.runIf(nativeStatus.available)('native kernel layouts', () => {
  const kernel = nativeStatus.available ? nativeStatus.kernel : null;
  const ref = new PopcountGemmRef();

  it.each(CASES)(`$name: every layout (${LAYOUT_NAMES}) equals the reference, untouched cells kept`, async (c) => {
    const { request } = c;
    const expected = await ref.run(request);
    expect(expected.some((out) => out.some((tally) => tally !== 0))).toBe(true);
    if (c.bits !== null) expect(neededMismatches(request, naiveTallies(c.bits.a, c.bits.b, request), expected)).toEqual([]);
    for (const layout of LAYOUTS) {
      for (const shiftWords of [0, 5, 12]) {
        for (const panel of panelsOf(request, c.cuts)) {
          const outputs = sentinelOutputs(request, shiftWords);
          kernel?.runTask({ request, panel, outputs }, { layout });
          const context = `${layout}, outputs shifted ${shiftWords}, rows [${panel.rowBegin}, ${panel.rowEnd})`;
          expect(panelMismatches(request, panel, outputs, expected), context).toEqual([]);
        }
      }
    }
  });

  it('refuses an unknown layout', () => {
    const [{ request }] = CASES;
    const outputs = sentinelOutputs(request, 0);
    const panel = { rowBegin: 0, rowEnd: 1, colBegin: 0 };
    expect(() => kernel?.runTask({ request, panel, outputs }, { layout: 'diagonal' as NativeKernelLayout })).toThrow(/options\.layout/);
  });
});
