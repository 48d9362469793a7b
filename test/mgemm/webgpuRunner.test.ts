// The runner's split of submit and collect: read-backs submitted one after another and collected in any order see
// the buffer as the queue left it at their submit (what sharing scratch between requests in flight relies on), and
// count as pending until collected; a program compiled ahead whose WGSL is broken fails its first use with the
// compile error (and nothing goes unhandled meanwhile); grids of no workgroups are left out.
import { describe, expect, it } from 'vitest';
import { foldWorkgroups } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';

const gate = await webgpuGate();

/** Writes `u.value` to every word of `out`: a program that compiles. */
const FILL: WgslProgram = {
  cacheKey: 'test/fill', workgroupSize: [64, 1], storage: [{ name: 'out', access: 'read_write', elementType: 'u32' }],
  uniforms: [{ name: 'value', type: 'u32' }], extensions: [], declarations: '',
  mainBody: '  let idx = wg.x * 64u + lid.x;\n  if (idx < arrayLength(&out)) { out[idx] = u.value; }',
};

/** A program whose WGSL does not compile. */
const BROKEN: WgslProgram = { ...FILL, cacheKey: 'test/broken', mainBody: '  out[0] = undeclaredName;' };

describe('foldWorkgroups', () => {
  it('folds a 1-D grid into rows of at most the limit, covering every workgroup once; none is [1, 0]', () => {
    expect(foldWorkgroups(5, 65535)).toEqual([5, 1]);
    expect(foldWorkgroups(65535 * 2 + 1, 65535)).toEqual([65535, 3]);
    expect(foldWorkgroups(0, 65535)).toEqual([1, 0]);
  });
});

describe.skipIf(!gate.available)(`webgpu runner (${gate.description})`, () => {
  it('leaves out dispatches of no workgroups, and runs the others of the submit with their own uniforms', async () => {
    const runner = await openTestRunner();
    try {
      const buffer = runner.createStorageBuffer(64 * 4, { readBack: true });
      const none = { program: FILL, storage: [buffer], uniforms: { value: 5 }, workgroups: foldWorkgroups(0, 65535) };
      const fill = { program: FILL, storage: [buffer], uniforms: { value: 6 }, workgroups: [1, 1] as const };
      expect(await runner.runAndReadBackMany([none, fill], [{ buffer, numBytes: 8 }])).toEqual([Uint32Array.of(6, 6)]);
      expect(await runner.runAndReadBackMany([none], [{ buffer, numBytes: 8 }])).toEqual([Uint32Array.of(6, 6)]);
    } finally {
      runner.destroy();
    }
  });

  it('collects read-backs submitted one after another, in any order, each as of its submit', async () => {
    const runner = await openTestRunner();
    try {
      const buffer = runner.createStorageBuffer(256 * 4, { readBack: true });
      const fill = (value: number) => [{ program: FILL, storage: [buffer], uniforms: { value }, workgroups: [4, 1] as const }];
      const first = await runner.submitWithReadBack(fill(7), [{ buffer, numBytes: 256 * 4 }]);
      const second = await runner.submitWithReadBack(fill(9), [{ buffer, numBytes: 16 }]);
      expect(runner.transfers.peakPendingReadBacks).toBe(2);
      const [secondWords] = await second.collect();
      const [firstWords] = await first.collect();
      expect(Array.from(secondWords)).toEqual([9, 9, 9, 9]);
      expect(firstWords.length).toBe(256);
      expect(firstWords.every((w) => w === 7)).toBe(true);
      await expect(first.collect()).rejects.toThrow(/twice/);
      // A third, submitted after both were collected, finds none pending.
      expect(await runner.runAndReadBackMany(fill(3), [{ buffer, numBytes: 4 }])).toEqual([Uint32Array.of(3)]);
      expect(runner.transfers.peakPendingReadBacks).toBe(2);
    } finally {
      runner.destroy();
    }
  });

  it('surfaces the error of a program compiled ahead at its first use', async () => {
    const runner = await openTestRunner();
    try {
      runner.compileStart([FILL, BROKEN]);
      expect(runner.compiledProgramKeys.sort()).toEqual(['test/broken', 'test/fill']);
      // Let the compiles finish: a rejection nobody awaited yet must not count as unhandled (vitest fails on one).
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(runner.pipelineFor(FILL)).resolves.toBeDefined();
      await expect(runner.pipelineFor(BROKEN)).rejects.toThrow(/WGSL of test\/broken does not compile/);
      const buffer = runner.createStorageBuffer(16, { readBack: true });
      await expect(runner.submitWithReadBack([{ program: BROKEN, storage: [buffer], uniforms: { value: 1 }, workgroups: [1, 1] }], []))
        .rejects.toThrow(/does not compile/);
    } finally {
      runner.destroy();
    }
  });
});
