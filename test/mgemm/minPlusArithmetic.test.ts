// The min-plus kernels' WGSL arithmetic (programs/wgsl/minPlusArithmetic.ts) against JavaScript, bit for bit: soft
// add, subtract (x ≥ y) and min of non-negative doubles and floats — random operands over the whole exponent range,
// subnormals, zeros (−0 too), ties to even, carries, cancellations, large exponent gaps, overflow to infinity — and
// the integer form's conversions and sums of integer-valued operands. Floats: Math.fround of the double result is
// the correctly rounded float result (a double has more than 2·24 + 2 bits).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValuePrecision } from '../../src/mgemm/index.js';
import { minPlusArithmeticWgsl, type MinPlusArithmetic } from '../../src/mgemm/kernels/webgpu/programs/wgsl/minPlusArithmetic.js';
import type { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();
const WORKGROUP = 64;
const OPS = ['add', 'sub', 'min', 'integerRoundTrip', 'integerAdd'] as const;
type Op = (typeof OPS)[number];
interface Case { readonly op: Op; readonly a: number; readonly b: number }

function testProgram(precision: ValuePrecision, arithmetic: MinPlusArithmetic): WgslProgram {
  const load = (at: string): string => (precision === 'double' ? `vec2<u32>(cases[${at}], cases[${at} + 1u])` : `cases[${at}]`);
  return {
    cacheKey: `test/minPlusArithmetic/${precision}/${arithmetic}`,
    workgroupSize: [WORKGROUP, 1],
    storage: [{ name: 'cases', access: 'read', elementType: 'u32' }, { name: 'out', access: 'read_write', elementType: 'u32' }],
    uniforms: [{ name: 'numCases', type: 'u32' }],
    extensions: [],
    declarations: minPlusArithmeticWgsl(precision, arithmetic),
    mainBody: `
  let t = wg.x * ${WORKGROUP}u + li;
  if (t >= u.numCases) { return; }
  let a = mpFromBits(${load('5u * t + 1u')});
  let b = mpFromBits(${load('5u * t + 3u')});
  var r = vec2<u32>(0u, 0u);
  switch (cases[5u * t]) {
    case 0u: { r = mpResultBits(mpAdd(a, b)); }
    case 1u: { r = mpResultBits(mpSub(a, b)); }
    case 2u: { r = mpResultBits(mpMin(a, b)); }
    case 3u: { r = mpResultBits(a); }
    case 4u: { r = mpResultBits(mpAdd(a, b)); }
    default: {}
  }
  out[2u * t] = r.x;
  out[2u * t + 1u] = r.y;`,
  };
}

const view = new DataView(new ArrayBuffer(8));
function wordsOf(x: number, precision: ValuePrecision): [number, number] {
  if (precision === 'single') {
    view.setFloat32(0, x, true);
    return [view.getUint32(0, true), 0];
  }
  view.setFloat64(0, x, true);
  return [view.getUint32(0, true), view.getUint32(4, true)];
}
function valueOfBits(lo: number, hi: number, precision: ValuePrecision): number {
  view.setUint32(0, lo, true);
  view.setUint32(4, hi, true);
  return precision === 'double' ? view.getFloat64(0, true) : view.getFloat32(0, true);
}

/** A random non-negative value of the precision from its bits: biased exponent in [eMin, eMax], `bits` significand bits. */
function randomValue(random: () => number, precision: ValuePrecision, eMin: number, eMax: number, bits: number): number {
  const e = eMin + Math.floor(random() * (eMax - eMin + 1));
  const mantissaBits = precision === 'double' ? 52 : 23;
  const keep = Math.min(bits, mantissaBits);
  let lo = Math.floor(random() * 2 ** 32) >>> 0;
  let hi = Math.floor(random() * 2 ** 32) >>> 0;
  if (precision === 'single') return valueOfBits(((e << 23) | (lo & 0x7fffff & ~((1 << (23 - keep)) - 1))) >>> 0, 0, precision);
  const drop = 52 - keep;
  if (drop >= 32) { lo = 0; hi &= ~((1 << (drop - 32)) - 1); } else { lo &= ~(2 ** drop - 1); }
  return valueOfBits(lo >>> 0, ((e << 20) | (hi & 0xfffff)) >>> 0, precision);
}

function softCases(precision: ValuePrecision, random: () => number): Case[] {
  const eMax = precision === 'double' ? 2046 : 254;
  const eOne = precision === 'double' ? 1023 : 127;
  const ulpHalf = precision === 'double' ? 2 ** -53 : 2 ** -24;
  const tiny = precision === 'double' ? 2 ** -1074 : 2 ** -149;
  const max = precision === 'double' ? Number.MAX_VALUE : (2 - 2 ** -23) * 2 ** 127;
  const round = precision === 'single' ? Math.fround : (x: number): number => x;
  const special = [0, -0, tiny, 3 * tiny, 1, 1 + 2 * ulpHalf, 0.1, 1 / 3, 2 - 2 * ulpHalf, max, max / 2, 7].map(round);
  const pairs: [number, number][] = [];
  for (const a of special) for (const b of special) pairs.push([a, b]);
  // Ties to even and just past them; carries into the next binade.
  pairs.push([1, ulpHalf], [1 + 2 * ulpHalf, ulpHalf], [1, ulpHalf * (1 + 2 * ulpHalf)], [2 - 2 * ulpHalf, ulpHalf], [max, max], [max, max * ulpHalf]);
  for (let k = 0; k < 6000; k++) {
    const bits = [52, 20, 4][k % 3];
    const sub = k % 7 === 0; // subnormals and the smallest normals
    const a = sub ? randomValue(random, precision, 0, 2, bits) : randomValue(random, precision, k % 11 === 0 ? 0 : eOne - 60, k % 13 === 0 ? eMax : eOne + 60, bits);
    let b = sub ? randomValue(random, precision, 0, 2, bits) : randomValue(random, precision, eOne - 60, eOne + 60, bits);
    if (k % 4 === 1) b = a * (1 - random() * 2 ** -(1 + Math.floor(random() * 30))); // cancellation
    if (k % 5 === 2) b = a * 2 ** -Math.floor(random() * 90); // exponent gaps past the significand
    b = round(b);
    pairs.push([a, b]);
  }
  const cases: Case[] = [];
  for (const [a, b] of pairs) {
    cases.push({ op: 'add', a, b }, { op: 'min', a, b });
    const [x, y] = Math.abs(a) >= Math.abs(b) ? [a, b] : [b, a];
    cases.push({ op: 'sub', a: x, b: y });
  }
  return cases;
}

function integerCases(precision: ValuePrecision, random: () => number): Case[] {
  const p = precision === 'double' ? 53 : 24;
  const cases: Case[] = [];
  for (const a of [0, -0, 1, 2, 3, 2 ** (p - 1), 2 ** p - 1, 2 ** 31, 2 ** 32 + 1]) {
    if (a < 2 ** p) cases.push({ op: 'integerRoundTrip', a, b: 0 }, { op: 'min', a, b: 5 });
  }
  for (let k = 0; k < 4000; k++) {
    const a = Math.floor(random() * 2 ** (1 + (k % (p - 1))));
    const b = Math.floor(random() * 2 ** (1 + ((k * 7) % (p - 1))));
    cases.push({ op: 'integerRoundTrip', a, b: 0 }, { op: 'integerAdd', a, b }, { op: 'min', a, b });
    const [x, y] = a >= b ? [a, b] : [b, a];
    cases.push({ op: 'sub', a: x, b: y });
  }
  return cases;
}

function expected(c: Case, precision: ValuePrecision): [number, number] {
  const round = precision === 'single' ? Math.fround : (x: number): number => x;
  const a = Math.abs(c.a);
  const b = Math.abs(c.b);
  switch (c.op) {
    case 'add': case 'integerAdd': return wordsOf(round(a + b), precision);
    case 'sub': return wordsOf(round(a - b), precision);
    case 'min': return wordsOf(Math.min(a, b), precision);
    case 'integerRoundTrip': return wordsOf(a, precision);
  }
}

describe.skipIf(!gate.available)(`min-plus arithmetic in WGSL (${gate.description})`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => { runner = await openTestRunner(); });
  afterAll(async () => { await runner.destroy(); });

  for (const precision of ['double', 'single'] as const) {
    for (const arithmetic of ['soft', 'integer'] as const) {
      it(`${arithmetic} ${precision}: every case gives JavaScript's bits`, async () => {
        const random = seededRandom(precision === 'double' ? 53 : 24);
        const cases = arithmetic === 'soft' ? softCases(precision, random) : integerCases(precision, random);
        const words = new Uint32Array(5 * cases.length);
        cases.forEach((c, t) => words.set([OPS.indexOf(c.op), ...wordsOf(c.a, precision), ...wordsOf(c.b, precision)], 5 * t));
        const input = runner.createStorageBufferFrom(words, { readBack: false });
        const output = runner.createStorageBuffer(8 * cases.length, { readBack: true });
        const program = testProgram(precision, arithmetic);
        const out = await runner.runAndReadBack([{ program, storage: [input, output], uniforms: { numCases: cases.length }, workgroups: [Math.ceil(cases.length / WORKGROUP), 1] }], output, 8 * cases.length);
        input.destroy();
        output.destroy();
        const wrong: string[] = [];
        cases.forEach((c, t) => {
          const want = expected(c, precision);
          if (out[2 * t] !== want[0] || out[2 * t + 1] !== want[1]) {
            wrong.push(`${c.op}(${c.a}, ${c.b}): got ${valueOfBits(out[2 * t], out[2 * t + 1], precision)}, want ${valueOfBits(want[0], want[1], precision)}`);
          }
        });
        expect(wrong.slice(0, 10)).toEqual([]);
        expect(cases.length).toBeGreaterThan(10000);
      });
    }
  }
});
