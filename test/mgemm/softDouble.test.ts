// The WGSL soft-float double library against JavaScript's own doubles, bit for bit: thousands of random
// operands per operation, plus rounding ties, carries into the exponent, exact results and cancellations;
// the limb products of sdMul (and its short-factor and u32 forms) also on constructed exact and near ties.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import { SOFT_DOUBLE_WGSL } from '../../src/mgemm/kernels/webgpu/programs/wgsl/softDouble.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import { float32Bits } from '../helpers/float32Bits.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

/** Operations the test shader applies to (a, b); the result is two words (a double, a u64, or a u32 in the low word). */
const OPS = ['mul', 'add', 'sub', 'div', 'fromU32', 'toF32', 'floor56', 'fromF32', 'less', 'mulShort', 'mulU32'] as const;
type Op = (typeof OPS)[number];

const WORKGROUP = 64;

const TEST_PROGRAM: WgslProgram = {
  cacheKey: 'test/softDouble',
  workgroupSize: [WORKGROUP, 1],
  storage: [
    { name: 'cases', access: 'read', elementType: 'u32' },
    { name: 'out', access: 'read_write', elementType: 'u32' },
  ],
  uniforms: [{ name: 'numCases', type: 'u32' }],
  extensions: [],
  declarations: `${SOFT_DOUBLE_WGSL}
const NOT_SHORT = vec2<u32>(0xffffffffu, 0xffffffffu);`,
  mainBody: `
  let t = wg.x * ${WORKGROUP}u + li;
  if (t >= u.numCases) { return; }
  let op = cases[5u * t];
  let a = vec2<u32>(cases[5u * t + 1u], cases[5u * t + 2u]);
  let b = vec2<u32>(cases[5u * t + 3u], cases[5u * t + 4u]);
  var r = vec2<u32>(0u, 0u);
  switch (op) {
    case 0u: { r = sdMul(a, b); }
    case 1u: { r = sdAdd(a, b); }
    case 2u: { r = sdSub(a, b); }
    case 3u: { r = sdDiv(a, b); }
    case 4u: { r = sdFromU32(a.x); }
    case 5u: { r = vec2<u32>(sdToF32Bits(a), 0u); }
    case 6u: { r = sdFloorTimes2p56(a); }
    case 7u: { r = sdFromF32Bits(a.x); }
    case 9u: {
      let factor = sdFactor(b);
      r = select(NOT_SHORT, sdMulShortFactor(a, factor), sdFactorIsShort(factor));
    }
    case 10u: { r = sdMulU32(sdFactor(a), b.x); }
    case 8u: { r = vec2<u32>(select(0u, 1u, sdLessNonNegative(a, b)), 0u); }
    default: {}
  }
  out[2u * t] = r.x;
  out[2u * t + 1u] = r.y;`,
};

const scratch = new DataView(new ArrayBuffer(8));
function bitsOf(x: number): [number, number] {
  scratch.setFloat64(0, x, true);
  return [scratch.getUint32(0, true), scratch.getUint32(4, true)];
}
function doubleOf(lo: number, hi: number): number {
  scratch.setUint32(0, lo, true);
  scratch.setUint32(4, hi, true);
  return scratch.getFloat64(0, true);
}
function float32OfBits(bits: number): number {
  scratch.setUint32(0, bits, true);
  return scratch.getFloat32(0, true);
}

interface Case {
  readonly op: Op;
  readonly a: number;
  readonly b: number;
}

const NOT_SHORT: [number, number] = [0xffffffff, 0xffffffff];

/** The library's product: JavaScript's, except that results below 2^-1022 are flushed to a signed zero. */
function productBits(a: number, b: number): [number, number] {
  const p = a * b;
  return bitsOf(Math.abs(p) < 2 ** -1022 ? (p < 0 || Object.is(p, -0) ? -0 : 0) : p);
}

/** Whether a double's significand has at most 11 bits (the short factors of sdMulShortFactor). */
function isShortFactor(d: number): boolean {
  const [lo, hi] = bitsOf(d);
  return lo === 0 && (hi & 0x3ff) === 0;
}

/** What JavaScript computes for a case, as the two result words. */
function expected(c: Case): [number, number] {
  switch (c.op) {
    case 'mul': return productBits(c.a, c.b);
    case 'mulShort': return isShortFactor(c.b) ? productBits(c.a, c.b) : NOT_SHORT;
    case 'mulU32': return productBits(c.a, c.b);
    case 'add': return bitsOf(c.a + c.b);
    case 'sub': return bitsOf(c.a - c.b);
    case 'div': return bitsOf(c.a / c.b);
    case 'fromU32': return bitsOf(c.a);
    case 'toF32': return [float32Bits(Math.fround(c.a)), 0];
    case 'floor56': {
      const v = BigInt(Math.floor(c.a * 2 ** 56));
      return [Number(v & 0xffffffffn), Number(v >> 32n)];
    }
    case 'fromF32': return bitsOf(float32OfBits(c.a));
    case 'less': return [c.a < c.b ? 1 : 0, 0];
  }
}

/** The operand words of a case: doubles as bits, u32 operands (fromU32, fromF32, mulU32's b) as themselves. */
function operandWords(c: Case): number[] {
  const a = c.op === 'fromU32' || c.op === 'fromF32' ? [c.a >>> 0, 0] : bitsOf(c.a);
  const b = c.op === 'mulU32' ? [c.b >>> 0, 0] : bitsOf(c.b);
  return [OPS.indexOf(c.op), ...a, ...b];
}

/** A random normal double with a biased exponent in [1023 − range, 1023 + range]; `bits` limits the significand. */
function randomDouble(random: () => number, range: number, bits = 52, signed = true): number {
  const e = 1023 - range + Math.floor(random() * (2 * range + 1));
  const mantHi = Math.floor(random() * 2 ** 20);
  const mantLo = Math.floor(random() * 2 ** 32) >>> 0;
  let mant = BigInt(mantHi) * 2n ** 32n + BigInt(mantLo);
  if (bits < 52) mant &= ((1n << BigInt(bits)) - 1n) << BigInt(52 - bits);
  const hi = (signed && random() < 0.5 ? 0x80000000 : 0) | (e << 20) | Number(mant >> 32n);
  return doubleOf(Number(mant & 0xffffffffn), hi >>> 0);
}

const SPECIAL = [0, -0, 1, -1, 1 / 3, 2 / 3, 9 / 2, 4.5, 4, 0.5, 2, 3, 1 - 2 ** -53, 1 + 2 ** -52, 2 - 2 ** -52, 7, 1e-10, 1e10, 15.999999999999998, 2 ** -500, 2 ** 500];

function binaryCases(op: Op, random: () => number): Case[] {
  const cases: Case[] = [];
  for (const a of SPECIAL) for (const b of SPECIAL) cases.push({ op, a, b });
  for (let k = 0; k < 3000; k++) {
    // Short significands make exact results and ties frequent; near exponents exercise alignment.
    const bits = k % 3 === 0 ? 52 : k % 3 === 1 ? 26 : 5;
    const a = randomDouble(random, 40, bits);
    let b = randomDouble(random, 40, bits);
    if (k % 4 === 0) b = a * (1 + randomDouble(random, 30, 52, false) * 2 ** -30) * (random() < 0.5 ? -1 : 1); // cancellation
    if (k % 5 === 0) b = randomDouble(random, 0, bits) * 2 ** (Math.floor(random() * 70) - 35) * a; // exponent gaps up to ±70
    cases.push({ op, a, b });
  }
  // Ties: 1 + 2^-53 (round to even: 1), 1 + 3·2^-53 (up), products that land exactly halfway.
  cases.push({ op, a: 1, b: 2 ** -53 }, { op, a: 1 + 2 ** -52, b: 2 ** -53 }, { op, a: 1 + 2 ** -52, b: -(2 ** -53) });
  cases.push({ op, a: 1 + 2 ** -26, b: 1 + 2 ** -27 }, { op, a: 1 + 3 * 2 ** -26, b: 1 + 2 ** -27 }, { op, a: 2 ** 53 - 1, b: 2 ** 53 - 1 });
  return cases.filter((c) => !(c.op === 'div' && c.b === 0));
}

/** The double significand · 2^(exponent − 52) of a 53-bit significand (bit 52 set) and a biased exponent − 1023. */
function doubleOfSignificand(significand: bigint, exponent: number, negative = false): number {
  const hi = (negative ? 0x80000000 : 0) | ((exponent + 1023) << 20) | Number((significand >> 32n) & 0xfffffn);
  return doubleOf(Number(significand & 0xffffffffn), hi >>> 0);
}

function randomSignificand(random: () => number): bigint {
  return (1n << 52n) | (BigInt(Math.floor(random() * 2 ** 20)) << 32n) | BigInt(Math.floor(random() * 2 ** 32));
}

/** x⁻¹ mod 2^bits for odd x (Newton's iteration doubles the correct low bits: 3, 6, …, 96). */
function inverseModPow2(x: bigint, bits: bigint): bigint {
  const mask = (1n << bits) - 1n;
  let inverse = x;
  for (let k = 0; k < 5; k++) inverse = (inverse * (2n - x * inverse)) & mask;
  return inverse;
}

/**
 * The dropped bits (below the 53 kept ones) that put a product at a rounding edge: exactly half an ulp (a tie,
 * to even), half an ulp plus or minus the lowest dropped bit (the sticky bit decides), half plus a quarter.
 */
function roundingEdgeTargets(dropped: bigint): bigint[] {
  const half = 1n << (dropped - 1n);
  return dropped < 2n ? [half] : [half, half + 1n, half - 1n, half + (half >> 1n)];
}

/** B ≡ target · A⁻¹ (mod 2^dropped) for odd A: then A·B ends in `target`. */
function factorForDroppedBits(a: bigint, target: bigint, dropped: bigint): bigint {
  return (target * inverseModPow2(a, dropped)) & ((1n << dropped) - 1n);
}

/**
 * Products whose rounding is decided at the last bit: significands A (odd) and B built so that A·B's dropped
 * bits are a rounding edge, for both lengths of A·B (105 or 106 bits: 52 or 53 dropped bits).
 */
function roundingEdgeMulCases(random: () => number): Case[] {
  const cases: Case[] = [];
  for (let k = 0; k < 600; k++) {
    const a = randomSignificand(random) | 1n;
    const dropped = k % 2 === 0 ? 52n : 53n;
    // 53 dropped bits fix B entirely (if A·B then has 105 bits, the case is a near tie one bit lower).
    let b = factorForDroppedBits(a, roundingEdgeTargets(dropped)[Math.floor(k / 2) % 4], dropped);
    if (dropped === 52n) b |= 1n << 52n;
    if (b < 1n << 52n) continue;
    const ea = Math.floor(random() * 60) - 30;
    const eb = Math.floor(random() * 60) - 30;
    cases.push({ op: 'mul', a: doubleOfSignificand(a, ea, random() < 0.5), b: doubleOfSignificand(b, eb, random() < 0.5) });
  }
  // Ties of short significands: odd A, B of 27 bits with a 54-bit product (its last bit is the rounding bit).
  for (let k = 0; k < 300; k++) {
    const a = (1n << 26n) | BigInt(Math.floor(random() * 2 ** 26)) | 1n;
    const b = (1n << 26n) | BigInt(Math.floor(random() * 2 ** 26)) | 1n;
    cases.push({ op: 'mul', a: Number(a) * 2 ** (Math.floor(random() * 20) - 30), b: Number(b) * 2 ** -26 });
  }
  return cases;
}

/** sdMul beyond binaryCases: all-ones significands, powers of two, small integers, exponent limits, random. */
function mulCases(random: () => number): Case[] {
  const cases: Case[] = roundingEdgeMulCases(random);
  const allOnes = [2 - 2 ** -52, -(2 - 2 ** -52), (2 - 2 ** -52) * 2 ** 30, 1 - 2 ** -53, 2 ** 53 - 1];
  for (const a of allOnes) {
    for (const b of allOnes) cases.push({ op: 'mul', a, b });
    for (let k = 0; k < 40; k++) cases.push({ op: 'mul', a, b: randomDouble(random, 20, 52) }, { op: 'mul', a: randomDouble(random, 20, 52), b: a });
  }
  for (let k = -60; k <= 60; k += 3) {
    cases.push({ op: 'mul', a: 2 ** k, b: randomDouble(random, 30, 52) }, { op: 'mul', a: randomDouble(random, 30, 52), b: -(2 ** k) });
  }
  for (let k = 0; k < 500; k++) {
    const small = 1 + Math.floor(random() * 2 ** (1 + (k % 26)));
    cases.push({ op: 'mul', a: small, b: randomDouble(random, 30, 52) }, { op: 'mul', a: randomDouble(random, 30, 52), b: small });
  }
  // The exponent limits: a product rounding up to 2^-1022 or to 2^1024 (infinity); flushed and infinite results.
  cases.push({ op: 'mul', a: (1 + 2 ** -52) * 2 ** -600, b: (2 - 2 ** -51) * 2 ** -423 }, { op: 'mul', a: (1 + 2 ** -52) * 2 ** 600, b: (2 - 2 ** -51) * 2 ** 423 });
  cases.push({ op: 'mul', a: 2 ** -600, b: -(2 ** -600) }, { op: 'mul', a: 2 ** 600, b: -(2 ** 600) }, { op: 'mul', a: 2 ** -511, b: 2 ** -511 }, { op: 'mul', a: 2 ** 511, b: 2 ** 512 });
  for (let k = 0; k < 4000; k++) cases.push({ op: 'mul', a: randomDouble(random, 300, 52), b: randomDouble(random, 300, k % 2 === 0 ? 52 : 1 + (k % 52)) });
  return cases;
}

/** sdMulShortFactor: b with at most 11 significand bits (4.5, 4, …), and longer b that it must refuse. */
function mulShortCases(random: () => number): Case[] {
  const cases: Case[] = [];
  const shortFactors = [4.5, 4, -4.5, 1, 3, 0, -0, 2 ** -30, 2047, 1023.5, 1.5, 2 - 2 ** -10];
  for (const b of shortFactors) {
    for (const a of SPECIAL) cases.push({ op: 'mulShort', a, b });
    for (let k = 0; k < 100; k++) cases.push({ op: 'mulShort', a: randomDouble(random, 40, k % 2 === 0 ? 52 : 20), b });
  }
  for (let k = 0; k < 1500; k++) cases.push({ op: 'mulShort', a: randomDouble(random, 40, 52), b: randomDouble(random, 40, k % 20 === 0 ? 12 : 1 + (k % 11)) });
  for (const b of [1 + 2 ** -11, 1 + 2 ** -52, 1 / 3, 2 - 2 ** -52]) cases.push({ op: 'mulShort', a: 1.25, b });
  return cases;
}

/** sdMulU32: a · r for tallies r of every length (0 included), against JavaScript's a · r. */
function mulU32Cases(random: () => number): Case[] {
  const cases: Case[] = [];
  for (const r of [0, 1, 2, 3, 2 ** 14 - 1, 2 ** 14, 2 ** 26 - 1, 2 ** 26, 2 ** 31, 2 ** 32 - 1]) {
    for (const a of SPECIAL) cases.push({ op: 'mulU32', a, b: r });
  }
  for (let k = 0; k < 2500; k++) {
    const r = Math.floor(random() * 2 ** (1 + (k % 32)));
    cases.push({ op: 'mulU32', a: randomDouble(random, 40, k % 3 === 0 ? 26 : 52), b: r });
  }
  // Rounding edges: r of n bits makes A·r drop n − 1 or n bits; r's low bits are chosen to end A·r in an edge.
  for (let k = 0; k < 1000; k++) {
    const a = randomSignificand(random) | 1n;
    const n = 2n + BigInt(k % 31);
    const dropped = k % 2 === 0 ? n : n - 1n;
    const targets = roundingEdgeTargets(dropped);
    const r = factorForDroppedBits(a, targets[Math.floor(k / 2) % targets.length], dropped) | (1n << (n - 1n));
    cases.push({ op: 'mulU32', a: doubleOfSignificand(a, Math.floor(random() * 60) - 30, random() < 0.5), b: Number(r) });
  }
  return cases;
}

/** The largest float32, (2 − 2^-23) · 2^127: half an ulp above it rounds (to even) to the infinity. */
const FLOAT32_MAX = (2 - 2 ** -23) * 2 ** 127;

function allCases(): Case[] {
  const random = seededRandom(20261124);
  const cases: Case[] = [];
  for (const op of ['mul', 'add', 'sub', 'div'] as const) cases.push(...binaryCases(op, random));
  cases.push(...mulCases(random), ...mulShortCases(random), ...mulU32Cases(random));
  for (const x of [0, 1, 2, 3, 255, 256, 65535, 65536, 2 ** 31, 2 ** 32 - 1, 2 ** 31 - 1]) cases.push({ op: 'fromU32', a: x, b: 0 });
  for (let k = 0; k < 2000; k++) cases.push({ op: 'fromU32', a: Math.floor(random() * 2 ** (1 + (k % 32))), b: 0 });
  // float32 rounding: random doubles across float32's normal and subnormal ranges, ties, carries.
  for (const x of [...SPECIAL, 2 ** -126, 2 ** -149, 2 ** -150, 3 * 2 ** -151, 2 ** -127 + 2 ** -150, 1 + 2 ** -24, 1 + 3 * 2 ** -24, 2 - 2 ** -25, 0.1, 0.7, 1.5e-45, 1.4e-45, 3.4028235e38, FLOAT32_MAX + 2 ** 103, FLOAT32_MAX + 2 ** 103 - 2 ** 75, FLOAT32_MAX + 2 ** 102, 2 ** 128]) {
    cases.push({ op: 'toF32', a: x, b: 0 }, { op: 'toF32', a: -x, b: 0 });
  }
  for (let k = 0; k < 3000; k++) {
    const x = k % 3 === 0 ? randomDouble(random, 150, 52) : k % 3 === 1 ? randomDouble(random, 20, 30) : randomDouble(random, 3, 26, false);
    cases.push({ op: 'toF32', a: x, b: 0 });
  }
  // floor(v · 2^56) for v in [0, 16).
  for (const x of [0, 1, 15.999999999999998, 2 ** -56, 2 ** -57, 1 / 3, 2 / 3, 0.5 + 2 ** -53]) cases.push({ op: 'floor56', a: x, b: 0 });
  for (let k = 0; k < 2000; k++) cases.push({ op: 'floor56', a: Math.abs(randomDouble(random, 60, 52, false) % 16), b: 0 });
  // float32 bits to double: normals, subnormals, zeros of both signs.
  for (const bits of [0, 0x80000000, 1, 0x7fffff, 0x800000, 0x3f800000, 0xbf800000, 0x7f7fffff, 0x80000001]) cases.push({ op: 'fromF32', a: bits, b: 0 });
  for (let k = 0; k < 2000; k++) {
    const exponentField = k % 4 === 0 ? 0 : 1 + Math.floor(random() * 254);
    cases.push({ op: 'fromF32', a: ((random() < 0.5 ? 0x80000000 : 0) | (exponentField << 23) | Math.floor(random() * 2 ** 23)) >>> 0, b: 0 });
  }
  for (let k = 0; k < 2000; k++) {
    const a = Math.abs(randomDouble(random, 10, k % 2 === 0 ? 52 : 3));
    cases.push({ op: 'less', a, b: k % 7 === 0 ? a : Math.abs(randomDouble(random, 10, k % 2 === 0 ? 52 : 3)) });
  }
  cases.push({ op: 'less', a: 0, b: 2 ** -1000 }, { op: 'less', a: 0, b: 0 }, { op: 'less', a: 1, b: 0 });
  return cases;
}

describe.skipIf(!gate.available)(`WGSL soft double on ${gate.description}`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => {
    runner = await openTestRunner();
  });
  afterAll(() => runner.destroy());

  it('equals JavaScript bit for bit on every operation', async () => {
    const cases = allCases();
    const words = Uint32Array.from(cases.flatMap(operandWords));
    const input = runner.createStorageBuffer(words.byteLength, { readBack: false });
    const output = runner.createStorageBuffer(cases.length * 8, { readBack: true });
    runner.upload(input, words);
    const result = await runner.runAndReadBack([{
      program: TEST_PROGRAM, storage: [input, output], uniforms: { numCases: cases.length },
      workgroups: [Math.ceil(cases.length / WORKGROUP), 1],
    }], output, cases.length * 8);
    input.destroy();
    output.destroy();
    const mismatches: string[] = [];
    const perOp = new Map<Op, number>();
    cases.forEach((c, t) => {
      perOp.set(c.op, (perOp.get(c.op) ?? 0) + 1);
      const [lo, hi] = expected(c);
      if (result[2 * t] !== lo || result[2 * t + 1] !== hi) {
        mismatches.push(`${c.op}(${c.a}, ${c.b}): got ${result[2 * t + 1].toString(16)}:${result[2 * t].toString(16)}, want ${hi.toString(16)}:${lo.toString(16)}`);
      }
    });
    expect(mismatches.slice(0, 10)).toEqual([]);
    for (const op of OPS) expect(perOp.get(op) ?? 0).toBeGreaterThan(1000);
  });
});
