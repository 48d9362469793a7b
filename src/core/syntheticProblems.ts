// The synthetic problems of SPEC §4: each field's code depends only on global indices, so every
// decomposition sees the same data.
import { randomize, RANDOMIZE_MAX } from './randomize.js';

const RANDOMIZE_MAX_F32 = Math.fround(RANDOMIZE_MAX);

/** The `random` problem's 2-bit code of field `f` of vector `v`. */
export function randomProblemCode(v: number, f: number, numField: number): number {
  const idx = randomize(randomize(f + numField * v));
  // float32 quotient, then the product in double, as CoMet does.
  const q = Math.fround(Math.fround(idx) / RANDOMIZE_MAX_F32);
  return Math.floor((4 - 1e-5) * q);
}

/** `randomProblemCode` as a function of `idx = randomize(randomize(uid))` alone, built on first use. */
let codeOfRandomIndex: Uint8Array | undefined;

/** Code of every inner randomizer value r1: the outer randomize and the float32 steps, tabulated (714025 bytes). */
function codeOfInnerRandom(): Uint8Array {
  if (codeOfRandomIndex !== undefined) return codeOfRandomIndex;
  const table = new Uint8Array(RANDOMIZE_MAX);
  for (let r1 = 0; r1 < RANDOMIZE_MAX; r1++) {
    const idx = (4096 * r1 + 150889) % RANDOMIZE_MAX;
    table[r1] = Math.floor((4 - 1e-5) * Math.fround(Math.fround(idx) / RANDOMIZE_MAX_F32));
  }
  codeOfRandomIndex = table;
  return table;
}

/**
 * Codes of fields `[fieldFirst, fieldFirst + out.length)` of vector `v` of the `random` problem, equal to
 * `randomProblemCode` field by field. Why it is fast: along a row uid grows by 1, so the inner
 * randomize(uid) = (4096·(uid mod M) + 150889) mod M grows by 4096 mod M (one add and a conditional
 * subtract), and the rest is a lookup in a table indexed by that inner value.
 */
export function fillRandomProblemRow(v: number, fieldFirst: number, numField: number, out: Uint8Array): void {
  if (out.length === 0) return;
  const table = codeOfInnerRandom();
  let r1 = randomize(fieldFirst + numField * v);
  for (let f = 0; f < out.length; f++) {
    out[f] = table[r1];
    r1 += 4096;
    if (r1 >= RANDOMIZE_MAX) r1 -= RANDOMIZE_MAX;
  }
}

/** Inner randomizer step from one group of 8 fields to the next: 8·4096 mod M. */
const GROUP_STEP = (8 * 4096) % RANDOMIZE_MAX;

/** GROUP_STEP⁻¹ mod M (M = 5²·13⁴ is prime to 2): the position k of r = k·GROUP_STEP mod M on the walk below. */
const GROUP_STEP_INVERSE = inverseModulo(GROUP_STEP, RANDOMIZE_MAX);

/** Number of positions on the walk of a row's 8-field groups (packedBytesAlongWalk): the randomizer's modulus. */
export const RANDOM_WALK_LENGTH = RANDOMIZE_MAX;

/** The walk's packed bytes, built on first use. */
let packedBytesOfWalk: Uint8Array | undefined;

/**
 * The walk r_k = k·GROUP_STEP mod M (k = 0 … M−1) is the sequence of inner randomizer values of a row's
 * consecutive 8-field groups. Bytes [2k, 2k + 2) hold the codes of the 8 fields whose first has inner value r_k
 * (that field's and the next seven's, at r_k + 4096·j mod M), packed 2 bits each from the least significant bits:
 * two bytes of SPEC §1's layout. A row's packed codes are then consecutive bytes of this table (1.4 MB), copied,
 * not looked up group by group at scattered places; a row starts at randomRowWalkStart.
 */
export function packedBytesAlongWalk(): Uint8Array {
  if (packedBytesOfWalk !== undefined) return packedBytesOfWalk;
  const codes = codeOfInnerRandom();
  // First the 8 codes packed per inner value r: 4096 and M are coprime, so r → r − 4096 mod M visits every
  // value once, and walking it from r = 0 each window is the previous one shifted up one field with the new
  // first code below: packed(r − 4096) = codes[r − 4096] | (packed(r) << 2) mod 2^16.
  const packedOf = new Uint16Array(RANDOMIZE_MAX);
  let packed = 0;
  for (let k = 7, r = (7 * 4096) % RANDOMIZE_MAX; k >= 0; k--, r = r < 4096 ? r + RANDOMIZE_MAX - 4096 : r - 4096) {
    packed = ((packed << 2) | codes[r]) & 0xffff;
  }
  for (let i = 0, r = 0; i < RANDOMIZE_MAX; i++) {
    packedOf[r] = packed;
    r = r < 4096 ? r + RANDOMIZE_MAX - 4096 : r - 4096;
    packed = ((packed << 2) | codes[r]) & 0xffff;
  }
  const bytes = new Uint8Array(2 * RANDOMIZE_MAX);
  for (let k = 0, r = 0; k < RANDOMIZE_MAX; k++) {
    bytes[2 * k] = packedOf[r] & 0xff;
    bytes[2 * k + 1] = packedOf[r] >> 8;
    r += GROUP_STEP;
    if (r >= RANDOMIZE_MAX) r -= RANDOMIZE_MAX;
  }
  packedBytesOfWalk = bytes;
  return bytes;
}

/**
 * Codes of fields `[fieldFirst, fieldFirst + count)` of vector `v` of the `random` problem, packed 4 per byte
 * LSB first (SPEC §1) into `out[outOffset …]`, `ceil(count/4)` bytes; the unused bits of a partial last byte
 * are 0. The same codes as `fillRandomProblemRow`: the whole groups of 8 fields are a run of the walk's bytes
 * (packedBytesAlongWalk) from the first field's position on it, the last few fields one at a time.
 */
export function fillRandomProblemRowPacked(
  v: number, fieldFirst: number, numField: number, count: number, out: Uint8Array, outOffset: number,
): void {
  if (count === 0) return;
  const walk = packedBytesAlongWalk();
  const numGroups = count >> 3;
  copyAlongWalk(walk, 2, randomRowWalkStart(v, fieldFirst, numField), numGroups, out, outOffset);
  const tailCount = count - 8 * numGroups;
  if (tailCount === 0) return;
  const tail = new Uint8Array(tailCount);
  fillRandomProblemRow(v, fieldFirst + 8 * numGroups, numField, tail);
  for (let f = 0, b = outOffset + 2 * numGroups; f < tailCount; f += 4, b++) {
    let byte = 0;
    for (let j = 0; j < 4 && f + j < tailCount; j++) byte |= tail[f + j] << (2 * j);
    out[b] = byte;
  }
}

/** Position on the walk (packedBytesAlongWalk) of the inner randomizer value of field `fieldFirst` of vector `v`. */
export function randomRowWalkStart(v: number, fieldFirst: number, numField: number): number {
  // r1 < M and GROUP_STEP_INVERSE < M: the product stays below 2^53, exact in a double.
  return (randomize(fieldFirst + numField * v) * GROUP_STEP_INVERSE) % RANDOMIZE_MAX;
}

/**
 * Copies `count` positions of a table laid out along the walk (`bytesPerPosition` bytes each, RANDOM_WALK_LENGTH
 * positions) from position `start` on, wrapping at the walk's end, to `out[at …]`: a row's groups of 8 fields.
 */
export function copyAlongWalk(
  table: Uint8Array, bytesPerPosition: number, start: number, count: number, out: Uint8Array, at: number,
): void {
  for (let k = start, left = count, b = at; left > 0; k = 0) {
    const run = Math.min(left, RANDOMIZE_MAX - k);
    out.set(table.subarray(bytesPerPosition * k, bytesPerPosition * (k + run)), b);
    b += bytesPerPosition * run;
    left -= run;
  }
}

/** x⁻¹ mod m for x prime to m (extended Euclid). */
function inverseModulo(x: number, m: number): number {
  let [r0, r1] = [m, x % m];
  let [t0, t1] = [0, 1];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [t0, t1] = [t1, t0 - q * t1];
  }
  if (r0 !== 1) throw new Error(`${x} has no inverse modulo ${m}`);
  return t0 < 0 ? t0 + m : t0;
}

/** One perfect-shuffle step; `key` 0 or 1 picks which half goes to even positions. */
function shuffle(key: number, i: number, n: number): number {
  const h = Math.floor((n + 1 - key) / 2);
  return i < h ? 2 * i + key : 2 * (i - h) + 1 - key;
}

/** `perm(key, i, n)`: three shuffles, shuffle s keyed by bit s of `key`. */
export function analyticPermutation(key: number, i: number, n: number): number {
  let r = shuffle(key & 1, i, n);
  r = shuffle((key >> 1) & 1, r, n);
  return shuffle((key >> 2) & 1, r, n);
}

/** Number of field groups of the analytic problem: vectors are constant on each group. */
export const ANALYTIC_NUM_GROUP = 8;

/**
 * The `analytic` problem: field f belongs to group `perm(0,f,nf) div ceil(nf/8)`, and vector v holds
 * one code per group, so every tally is a sum of at most 8 group terms (see `fieldsPerGroup`).
 */
export class AnalyticProblem {
  private readonly groupSizeMax: number;
  private readonly valueMax: number;

  constructor(readonly numVector: number, readonly numField: number) {
    this.groupSizeMax = Math.ceil(numField / ANALYTIC_NUM_GROUP);
    this.valueMax = Math.min(1 + numVector, Math.floor((2 ** 53 - 1) / numField));
  }

  /** Group of global field `f`. */
  groupOf(f: number): number {
    return Math.floor(analyticPermutation(0, f, this.numField) / this.groupSizeMax);
  }

  /** Code of vector `v` on every field of group `g`. */
  groupCode(g: number, v: number): number {
    const pv = analyticPermutation(g, v, this.numVector);
    const value = 1 + Math.floor((pv * this.valueMax) / (1 + this.numVector));
    return (value - 1) & 3;
  }

  /** Code of field `f` of vector `v`. */
  code(v: number, f: number): number {
    return this.groupCode(this.groupOf(f), v);
  }

  /** Group of each global field `[fieldFirst, fieldFirst + count)`. */
  groupsOfFields(fieldFirst: number, count: number): Uint8Array {
    const groups = new Uint8Array(count);
    for (let f = 0; f < count; f++) groups[f] = this.groupOf(fieldFirst + f);
    return groups;
  }

  /**
   * Codes of vector `v` on the fields whose groups `groupsOfFields` gave, packed 4 per byte LSB first
   * (SPEC §1) into `out[outOffset …]`, `ceil(groups.length/4)` bytes; unused bits of a partial last byte are 0.
   */
  fillRowPacked(v: number, groups: Uint8Array, out: Uint8Array, outOffset: number): void {
    const codeOfGroup = new Uint8Array(ANALYTIC_NUM_GROUP);
    for (let g = 0; g < ANALYTIC_NUM_GROUP; g++) codeOfGroup[g] = this.groupCode(g, v);
    const count = groups.length;
    const numFullBytes = count >> 2;
    for (let b = 0, f = 0; b < numFullBytes; b++, f += 4) {
      out[outOffset + b] = codeOfGroup[groups[f]] | (codeOfGroup[groups[f + 1]] << 2)
        | (codeOfGroup[groups[f + 2]] << 4) | (codeOfGroup[groups[f + 3]] << 6);
    }
    if ((count & 3) === 0) return;
    let byte = 0;
    for (let f = 4 * numFullBytes; f < count; f++) byte |= codeOfGroup[groups[f]] << (2 * (f & 3));
    out[outOffset + numFullBytes] = byte;
  }

  /** How many fields each group has (counted directly, O(nf) once). */
  fieldsPerGroup(): number[] {
    const sizes = new Array<number>(ANALYTIC_NUM_GROUP).fill(0);
    for (let f = 0; f < this.numField; f++) sizes[this.groupOf(f)]++;
    return sizes;
  }
}
