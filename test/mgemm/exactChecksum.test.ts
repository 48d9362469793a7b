// The WGSL checksum sum against BigInt: checksumWeight's rv limbs (from checksumResidues of a pair's or triple's first
// uid and checksumResiduesPlus of the entry bits) and Σ rv·iv through the 12-bit columns, with CHECKSUM_TERMS_PER_FOLD
// terms of the heaviest rv (limbs) and the largest iv between folds (the columns' bound), and random terms, first uids
// near M among them (the entry bits carry past M).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import { CHECKSUM_TERMS_PER_FOLD, checksumWeightWgsl } from '../../src/mgemm/kernels/webgpu/programs/wgsl/exactChecksum.js';
import { SOFT_DOUBLE_WGSL } from '../../src/mgemm/kernels/webgpu/programs/wgsl/softDouble.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import { checksumWeight } from '../../src/core/checksum.js';
import { RANDOMIZE_MAX } from '../../src/core/randomize.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

const WORKGROUP = 64;
const FOLDS_PER_THREAD = 3;
const TERMS_PER_THREAD = FOLDS_PER_THREAD * CHECKSUM_TERMS_PER_FOLD;
/** Words of one term: first uid mod M, entry bits, iv low, iv high. */
const TERM_WORDS = 4;

/** Each thread adds its terms, folding after every CHECKSUM_TERMS_PER_FOLD, and writes its 128-bit sum. */
const TEST_PROGRAM: WgslProgram = {
  cacheKey: 'test/exactChecksum',
  workgroupSize: [WORKGROUP, 1],
  storage: [
    { name: 'terms', access: 'read', elementType: 'u32' },
    { name: 'out', access: 'read_write', elementType: 'u32' },
  ],
  uniforms: [{ name: 'numThreads', type: 'u32' }],
  extensions: [],
  declarations: `${SOFT_DOUBLE_WGSL}
${checksumWeightWgsl()}`,
  mainBody: `
  let t = wg.x * ${WORKGROUP}u + li;
  if (t >= u.numThreads) { return; }
  var sum = vec4<u32>(0u);
  for (var fold = 0u; fold < ${FOLDS_PER_THREAD}u; fold++) {
    for (var k = 0u; k < ${CHECKSUM_TERMS_PER_FOLD}u; k++) {
      let at = ${TERM_WORDS}u * (t * ${TERMS_PER_THREAD}u + fold * ${CHECKSUM_TERMS_PER_FOLD}u + k);
      checksumAddTerm(checksumWeight(checksumResiduesPlus(checksumResidues(terms[at]), terms[at + 1u])), vec2<u32>(terms[at + 2u], terms[at + 3u]));
    }
    sum = checksumFold(sum);
  }
  out[4u * t] = sum.x;
  out[4u * t + 1u] = sum.y;
  out[4u * t + 2u] = sum.z;
  out[4u * t + 3u] = sum.w;`,
};

interface Term {
  /** The entry's uid mod M = (first + bits) mod M. */
  readonly uidMod: number;
  /** Entry bits added to the pair's or triple's first uid, below 8. */
  readonly bits: number;
  readonly iv: bigint;
}

/** The first uid mod M of a term. */
const firstUidMod = (term: Term): number => (term.uidMod - term.bits + RANDOMIZE_MAX) % RANDOMIZE_MAX;

const IV_MAX = (1n << 60n) - 1n;

/** The sum of rv's 12-bit limbs: times the largest iv limb, what one term adds to the fullest column. */
function limbSum(rv: number): number {
  let sum = 0;
  for (let rest = rv; rest > 0; rest = Math.floor(rest / 4096)) sum += rest % 4096;
  return sum;
}

/** The uid residue whose rv fills the columns fastest. */
function heaviestWeightUid(): number {
  let best = 0;
  for (let uid = 1; uid < RANDOMIZE_MAX; uid++) if (limbSum(checksumWeight(uid)) > limbSum(checksumWeight(best))) best = uid;
  return best;
}

/** Per thread TERMS_PER_THREAD terms: the heaviest rv · the largest iv, zeros, and random ones. */
function threadTerms(): Term[][] {
  const random = seededRandom(6021);
  const randomIv = (bits: number): bigint => ((BigInt(Math.floor(random() * 2 ** 30)) << 30n) | BigInt(Math.floor(random() * 2 ** 30))) >> BigInt(60 - bits);
  const heaviest = heaviestWeightUid();
  const threads: Term[][] = [
    Array.from({ length: TERMS_PER_THREAD }, (_, k) => ({ uidMod: heaviest, bits: k % 8, iv: IV_MAX })),
    Array.from({ length: TERMS_PER_THREAD }, (_, k) => ({ uidMod: heaviest, bits: 7 - (k % 8), iv: k % 2 === 0 ? IV_MAX : 0n })),
    Array.from({ length: TERMS_PER_THREAD }, () => ({ uidMod: 0, bits: 0, iv: 0n })),
    // First uids M − 7 … M − 1 with every entry's bits: uid + bits wraps past M.
    Array.from({ length: TERMS_PER_THREAD }, (_, k) => ({ uidMod: (RANDOMIZE_MAX - 1 - (k % 7) + (k % 8)) % RANDOMIZE_MAX, bits: k % 8, iv: IV_MAX - BigInt(k) })),
  ];
  for (let t = 0; t < 2 * WORKGROUP; t++) {
    threads.push(Array.from({ length: TERMS_PER_THREAD }, (_, k) => ({
      uidMod: k % 5 === 0 ? heaviest : Math.floor(random() * RANDOMIZE_MAX),
      bits: Math.floor(random() * 8),
      iv: k % 7 === 0 ? IV_MAX : randomIv(1 + Math.floor(random() * 60)),
    })));
  }
  return threads;
}

describe.skipIf(!gate.available)(`WGSL checksum sum on ${gate.description}`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => {
    runner = await openTestRunner();
  });
  afterAll(() => runner.destroy());

  it('equals Σ rv·iv in BigInt, columns filled to their bound between folds', async () => {
    const threads = threadTerms();
    const words = Uint32Array.from(threads.flatMap((terms) => terms.flatMap((term) => [firstUidMod(term), term.bits, Number(term.iv & 0xffffffffn), Number(term.iv >> 32n)])));
    const input = runner.createStorageBuffer(words.byteLength, { readBack: false });
    const output = runner.createStorageBuffer(threads.length * 16, { readBack: true });
    runner.upload(input, words);
    const result = await runner.runAndReadBack([{
      program: TEST_PROGRAM, storage: [input, output], uniforms: { numThreads: threads.length },
      workgroups: [Math.ceil(threads.length / WORKGROUP), 1],
    }], output, threads.length * 16);
    input.destroy();
    output.destroy();
    const got = threads.map((_, t) => [0, 1, 2, 3].reduce((s, w) => s | (BigInt(result[4 * t + w]) << BigInt(32 * w)), 0n));
    const want = threads.map((terms) => terms.reduce((s, term) => s + BigInt(checksumWeight(term.uidMod)) * term.iv, 0n));
    expect(got).toEqual(want);
    expect(want[0]).toBeGreaterThan(1n << 100n);
  });
});
