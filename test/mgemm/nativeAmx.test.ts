// The native kernel's AMX-INT8 layout (options.layout 'amx', amxLoops.cc) on requests large enough for its blocking
// (nativeLayouts.test.ts covers small and ragged shapes in every layout): both loop orders (a panel's rows resident in
// L2, or B's columns when the rows do not fit), several column blocks (NC) and several K blocks whose sums are staged, KING's groups with a fused disjoint pair, strictUpper panels crossing column blocks, and
// a run in a worker thread of a fresh process whose main thread never touched AMX (Linux's tile permission is per
// process: the worker must get it). All against the reference kernel. Where the CPU lacks AMX-INT8 the tests say so in
// their names and check that 'amx' is refused with the reason while the horizontal layout still equals the reference.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import { loadNativePopcountKernel, type NativeKernelLayout } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { CCC_DENSE_TERMS, planesFromFieldBits, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';

const nativeStatus = loadNativePopcountKernel();
const amxStatus = nativeStatus.available ? nativeStatus.kernel.amxStatus() : null;
const cpuHasAmxInt8 = existsSync('/proc/cpuinfo') && /\bamx_int8\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
if (cpuHasAmxInt8 && nativeStatus.available && amxStatus?.available === false) throw new Error(`the CPU has AMX-INT8 but ${amxStatus.reason}`);
const amxHere = amxStatus?.available === true;
/** What the tests check: the amx layout where it runs, else the horizontal one and the refusal of amx. */
const LAYOUT: NativeKernelLayout = amxHere ? 'amx' : 'horizontal';
const NEEDS = amxHere ? 'amx layout (needs AMX-INT8: present)' : 'horizontal layout, amx refused (amx needs AMX-INT8: absent here)';

/** HET, HOM1, HOM2, called: one-hot genotype planes with a tenth missing; KING's four groups, ibs0 a disjoint pair. */
const KING_GROUPS: readonly TermGroup[] = [[[0, 0]], [[1, 2], [2, 1]], [[0, 3]], [[3, 0]]];
function kingBits(random: () => number, numVectors: number, numField: number): FieldBits {
  return Array.from({ length: numVectors }, () => {
    const planes = Array.from({ length: 4 }, () => new Array<number>(numField).fill(0));
    for (let f = 0; f < numField; f++) {
      const call = random();
      if (call < 0.1) continue;
      planes[call < 0.4 ? 0 : call < 0.7 ? 1 : 2][f] = 1;
      planes[3][f] = 1;
    }
    return planes;
  });
}

interface AmxCase {
  readonly name: string;
  readonly request: PopcountGemmRequest;
  /** Panels (tasks) the request is cut into. */
  readonly panels: readonly { rowBegin: number; rowEnd: number; colBegin: number }[];
}

const random = seededRandom(2601);
const CASES: AmxCase[] = [
  (() => {
    const a = planesFromFieldBits(kingBits(random, 75, 20011), 4, 20011, true);
    const b = planesFromFieldBits(kingBits(random, 303, 20011), 4, 20011, true);
    const request: PopcountGemmRequest = { a, aFirst: 5, aCount: 70, b, bFirst: 3, bCount: 300, termGroups: KING_GROUPS, strictUpper: false };
    return { name: 'KING 70 × 300 × 20,011 SNPs (3 column blocks, 10 K blocks, ragged rows and columns)', request, panels: [{ rowBegin: 0, rowEnd: 70, colBegin: 0 }] };
  })(),
  (() => {
    const a = planesFromFieldBits(kingBits(random, 260, 9000), 4, 9000, true);
    const request: PopcountGemmRequest = { a, aFirst: 0, aCount: 260, b: a, bFirst: 0, bCount: 260, termGroups: KING_GROUPS, strictUpper: true };
    const panels = [[0, 45], [45, 171], [171, 260]].map(([rowBegin, rowEnd]) => ({ rowBegin, rowEnd, colBegin: rowBegin + 1 }));
    return { name: 'KING strictUpper 260 × 260 × 9000 SNPs cut at rows 45 and 171', request, panels };
  })(),
  (() => {
    const a = planesFromFieldBits(kingBits(random, 300, 9000), 4, 9000, true);
    const b = planesFromFieldBits(kingBits(random, 100, 9000), 4, 9000, true);
    const request: PopcountGemmRequest = { a, aFirst: 0, aCount: 300, b, bFirst: 0, bCount: 100, termGroups: KING_GROUPS, strictUpper: false };
    return { name: 'KING 300 × 100 × 9000 SNPs (rows past L2: B columns resident, 3 K blocks)', request, panels: [{ rowBegin: 0, rowEnd: 300, colBegin: 0 }] };
  })(),
  (() => {
    const a = planesFromFieldBits(kingBits(random, 401, 3000), 4, 3000, true);
    const request: PopcountGemmRequest = { a, aFirst: 1, aCount: 400, b: a, bFirst: 1, bCount: 400, termGroups: KING_GROUPS, strictUpper: true };
    const panels = [[0, 333], [333, 400]].map(([rowBegin, rowEnd]) => ({ rowBegin, rowEnd, colBegin: rowBegin + 1 }));
    return { name: 'KING strictUpper 400 × 400 × 3000 SNPs (one K block; B columns resident, then rows resident)', request, panels };
  })(),
  (() => {
    const a = planesFromFieldBits(randomFieldBits(random, 40, 2, 70000), 2, 70000, true);
    const b = planesFromFieldBits(randomFieldBits(random, 50, 2, 70000), 2, 70000, true);
    const request: PopcountGemmRequest = { a, aFirst: 0, aCount: 40, b, bFirst: 0, bCount: 50, termGroups: [CCC_DENSE_TERMS, [[1, 0]]], strictUpper: false };
    return { name: 'dense CCC 40 × 50 × 70,000 fields (17 K blocks), two groups', request, panels: [{ rowBegin: 0, rowEnd: 40, colBegin: 0 }] };
  })(),
];

describe.runIf(nativeStatus.available)(`native kernel, ${NEEDS}`, () => {
  const kernel = nativeStatus.available ? nativeStatus.kernel : null;
  const ref = new PopcountGemmRef();

  it.each(CASES)(`$name: equals the reference`, async ({ request, panels }) => {
    const expected = await ref.run(request);
    const outputs = request.termGroups.map(() => new Uint32Array(new SharedArrayBuffer(4 * request.aCount * request.bCount)));
    for (const panel of panels) kernel?.runTask({ request, panel, outputs }, { layout: LAYOUT });
    const mismatches: string[] = [];
    outputs.forEach((out, g) => {
      for (const { rowBegin, rowEnd, colBegin } of panels) {
        for (let r = rowBegin; r < rowEnd && mismatches.length < 5; r++) {
          for (let c = Math.max(colBegin, request.strictUpper ? r + 1 : 0); c < request.bCount; c++) {
            const at = r * request.bCount + c;
            if (out[at] !== expected[g][at] && mismatches.length < 5) mismatches.push(`group ${g} [${r}][${c}]: ${out[at]}, expected ${expected[g][at]}`);
          }
        }
      }
    });
    expect(mismatches).toEqual([]);
    expect(expected[0].some((tally) => tally > 100)).toBe(true);
  });

  it(`layout amx ${amxHere ? 'runs (needs AMX-INT8: present)' : 'is refused naming why (amx needs AMX-INT8: absent here)'}`, () => {
    const { request, panels } = CASES[0];
    const outputs = request.termGroups.map(() => new Uint32Array(request.aCount * request.bCount));
    const run = () => kernel?.runTask({ request, panel: panels[0], outputs }, { layout: 'amx' });
    if (amxHere) {
      run();
      expect(outputs[0].some((tally) => tally > 0)).toBe(true);
    } else {
      expect(run).toThrow(/'amx' is unavailable: .+/);
    }
  });

  it(`${LAYOUT} runs in a worker thread of a fresh process whose main thread never touched the kernel (${NEEDS})`, () => {
    const nativeUrl = new URL('../../src/mgemm/kernels/native/nativePopcount.js', import.meta.url).href;
    const refUrl = new URL('../../src/mgemm/kernels/ref/popcountGemmRef.js', import.meta.url).href;
    // The worker builds random KING planes, runs LAYOUT and the reference, and posts how many cells differ.
    const workerSource = `
      const { parentPort } = require('node:worker_threads');
      (async () => {
        const { loadNativePopcountKernel } = await import(${JSON.stringify(nativeUrl)});
        const { PopcountGemmRef } = await import(${JSON.stringify(refUrl)});
        const status = loadNativePopcountKernel();
        const amx = status.kernel.amxStatus();
        const n = 90, wordsPerPlane = 200, words = new Uint32Array(new SharedArrayBuffer(4 * n * 4 * wordsPerPlane));
        let x = 12345;
        for (let i = 0; i < words.length; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; words[i] = x ^ (x >>> 13); }
        const planes = { numVectors: n, numPlanes: 4, wordsPerPlane, words };
        const request = { a: planes, aFirst: 0, aCount: n, b: planes, bFirst: 0, bCount: n, termGroups: [[[0, 0]], [[1, 2], [2, 1]], [[0, 3]]], strictUpper: false };
        const outputs = request.termGroups.map(() => new Uint32Array(n * n));
        status.kernel.runTask({ request, panel: { rowBegin: 0, rowEnd: n, colBegin: 0 }, outputs }, { layout: ${JSON.stringify(LAYOUT)} });
        const expected = await new PopcountGemmRef().run(request);
        const differing = outputs.reduce((sum, out, g) => sum + out.filter((v, i) => v !== expected[g][i]).length, 0);
        parentPort.postMessage({ amx, differing, someTally: outputs[0][1] });
      })().catch((error) => parentPort.postMessage({ error: String(error) }));`;
    const mainSource = `
      const { Worker } = require('node:worker_threads');
      const worker = new Worker(${JSON.stringify(workerSource)}, { eval: true });
      worker.on('message', (message) => { console.log(JSON.stringify(message)); worker.terminate(); });`;
    const child = spawnSync(process.execPath, ['-e', mainSource], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout.trim()) as { amx: unknown; differing: number; someTally: number };
    expect(result).toEqual({ amx: amxStatus, differing: 0, someTally: expect.any(Number) as number });
    expect(result.someTally).toBeGreaterThan(0);
  });
});
