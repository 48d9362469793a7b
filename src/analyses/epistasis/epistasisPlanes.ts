// Case-control epistasis planes and tallies: per class (controls, cases) the genotype planes g = 0, g = 1 and the
// presence plane P, each restricted to its class's field range; the popcount GEMMs give, per class, the table of every
// plane product over {0, 1, P}^k (an "extended" table) and inclusion–exclusion turns it into the 3^k genotype cells.
//
// Why classes as planes masked by field range rather than term groups over field ranges: samples are ordered
// [controls | cases] when the data are prepared, so a class plane is an ordinary plane with the other class's words
// cleared — the kernels (CPU, GPU) stay unchanged and a class costs nothing but its plane.
import type { FieldRange, PlaneLayout, TriplePlan } from '../index.js';
import type { TermGroup } from '../../mgemm/index.js';
import { popcount32 } from '../../core/bitCodes.js';

/** Plane kinds within a class: genotype 0, genotype 1, present (any call). Genotype 2 is P − g0 − g1. */
export const KIND_G0 = 0;
export const KIND_G1 = 1;
export const KIND_PRESENT = 2;
export const KINDS_PER_CLASS = 3;
export const NUM_CLASSES = 2;

/** Plane of kind `kind` of class `cls` (0 controls, 1 cases). */
export function planeOf(cls: number, kind: number): number {
  return cls * KINDS_PER_CLASS + kind;
}

/**
 * Six planes: per class g0, g1, P. SPEC §1 codes: 00 → g = 0, 01 → g = 1, 11 → g = 2, 10 → missing (no bit) when
 * calls may be missing; a dense run (no missing call in its data) keeps SPEC §1's meaning of 10 as 01.
 */
export function epistasisPlaneLayout(options: { readonly numControls: number; readonly numField: number; readonly sparse: boolean }): PlaneLayout {
  const both = (kind: number): number => (1 << planeOf(0, kind)) | (1 << planeOf(1, kind));
  const g0 = both(KIND_G0) | both(KIND_PRESENT);
  const g1 = both(KIND_G1) | both(KIND_PRESENT);
  const g2 = both(KIND_PRESENT);
  const ranges: FieldRange[] = [];
  for (let cls = 0; cls < NUM_CLASSES; cls++) {
    const range = cls === 0 ? { first: 0, end: options.numControls } : { first: options.numControls, end: options.numField };
    for (let kind = 0; kind < KINDS_PER_CLASS; kind++) ranges.push(range);
  }
  return {
    numPlanes: NUM_CLASSES * KINDS_PER_CLASS,
    // A vector's sum: its called samples (finalize reads per-class counts from the planes themselves).
    countPlanes: [planeOf(0, KIND_PRESENT), planeOf(1, KIND_PRESENT)],
    maskPlane: null,
    // Codes 00, 01, 10, 11.
    bitsOfCode: [g0, g1, options.sparse ? 0 : g1, g2],
    planeFieldRanges: ranges,
  };
}

/**
 * 2-way term groups. With missing calls (sparse): every product over {g0, g1, P}² per class, group `9·cls + 3x + y`.
 * Without: only the 2^2 genotype products g_x(i) ∧ g_y(j), x, y ∈ {0, 1}, group `4·cls + 2x + y`; the products with P
 * are then per-vector class counts and class sizes, which finalize takes from the planes instead of the GEMM.
 */
export function pairTermGroups(sparse: boolean): TermGroup[] {
  const groups: TermGroup[] = [];
  const kinds = sparse ? KINDS_PER_CLASS : 2;
  for (let cls = 0; cls < NUM_CLASSES; cls++) {
    for (let x = 0; x < kinds; x++) for (let y = 0; y < kinds; y++) groups.push([[planeOf(cls, x), planeOf(cls, y)]]);
  }
  return groups;
}

/**
 * 3-way tallies. With missing calls (sparse): mGEMM3's A operand holds the plane pairs (x of i) ∧ (y of j) of one
 * class, pair `9·cls + 3x + y`, against k's plane z of that class: group `27·cls + 9x + 3y + z`, x, y, z ∈ {g0, g1, P}.
 * Without (dense): only the 2^3 genotype products, pairs `4·cls + 2x + y` and groups `8·cls + 4x + 2y + z`, x, y, z ∈
 * {g0, g1} — 16 groups instead of 54. As P of a vector is then its whole class, a product with P at one axis is a
 * pair count of the other two, which the block-pair counts give (pairCountGroups: pairTermGroups(false), group
 * `4·cls + 2x + y` of the pair's row and column vector), with P at two axes a per-vector class count (the planes), and
 * PPP the class size.
 */
export function tripleTallyPlan(options: { readonly sparse: boolean }): TriplePlan {
  const { sparse } = options;
  const kinds = sparse ? KINDS_PER_CLASS : 2;
  const planePairs: (readonly [number, number])[] = [];
  const termGroups: TermGroup[] = [];
  for (let cls = 0; cls < NUM_CLASSES; cls++) {
    for (let x = 0; x < kinds; x++) for (let y = 0; y < kinds; y++) planePairs.push([planeOf(cls, x), planeOf(cls, y)]);
  }
  for (let cls = 0; cls < NUM_CLASSES; cls++) {
    for (let x = 0; x < kinds; x++) {
      for (let y = 0; y < kinds; y++) {
        for (let z = 0; z < kinds; z++) termGroups.push([[kinds * kinds * cls + kinds * x + y, planeOf(cls, z)]]);
      }
    }
  }
  return { planePairs, termGroups, pairCountGroup: null, pairCountGroups: sparse ? null : pairTermGroups(false) };
}

/**
 * Inclusion–exclusion along every axis of a class's extended table (3^k entries over {g0, g1, P}, the first axis
 * slowest), in place: the P entry of an axis becomes genotype 2, `P − g0 − g1`. Afterwards entry `Σ g_t·3^(k−1−t)`
 * is the number of the class's samples with genotypes (g_0, …) that are called at every SNP of the tuple.
 */
export function genotypeCellsInPlace(table: Float64Array, at: number, order: 2 | 3 | 4): void {
  const triples = order === 2 ? PAIR_AXIS_TRIPLES : order === 3 ? TRIPLE_AXIS_TRIPLES : QUAD_AXIS_TRIPLES;
  // Counts are integers below 2^32: the subtractions are exact in any order.
  for (let t = 0; t < triples.length; t += 3) table[at + triples[t + 2]] -= table[at + triples[t]] + table[at + triples[t + 1]];
}

/** (g0, g1, P) entry triples along each axis, the last axis first, as genotypeCellsInPlace visits them. */
function axisTriples(order: 2 | 3 | 4): Int32Array {
  const size = 3 ** order;
  const triples: number[] = [];
  for (let stride = 1; stride < size; stride *= 3) {
    for (let base = 0; base < size; base++) if (Math.floor(base / stride) % 3 === 0) triples.push(base, base + stride, base + 2 * stride);
  }
  return Int32Array.from(triples);
}

const PAIR_AXIS_TRIPLES = axisTriples(2);
const TRIPLE_AXIS_TRIPLES = axisTriples(3);
const QUAD_AXIS_TRIPLES = axisTriples(4);

/** Popcount of words [first, end) of `words`. */
export function popcountWords(words: Uint32Array, first: number, end: number): number {
  let count = 0;
  for (let w = first; w < end; w++) count += popcount32(words[w]);
  return count;
}

/** Each class's words [first, end) of a plane: those holding a field of its range (the other words are cleared). */
export function classWordRanges(numControls: number, numField: number): [first: number, end: number][] {
  return [[0, Math.ceil(numControls / 32)], [Math.floor(numControls / 32), Math.ceil(numField / 32)]];
}

