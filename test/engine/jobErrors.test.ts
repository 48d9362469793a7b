// Bad jobs fail before any rank starts, with one-line UserErrors that say what is wrong.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { runJob } from '../../src/engine/index.js';
import { makeJob } from './jobFixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function failure(p: Promise<unknown>): Promise<UserError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    expect((e as Error).message).not.toContain('\n');
    return e as UserError;
  }
  throw new Error('expected a UserError');
}

describe('job errors', () => {
  it('tally overflow', async () => {
    expect((await failure(runJob(makeJob({ numVector: 4, numField: 2 ** 24 })))).message).toMatch(/2\^26/);
    expect((await failure(runJob(makeJob({ numWay: 3, numVector: 4, numField: 2 ** 23 })))).message).toMatch(/2\^26/);
  });
  it('too few vectors per block', async () => {
    expect((await failure(runJob(makeJob({ numVector: 4, numField: 10, decomposition: { numProcVector: 4 } })))).message).toMatch(/too few vectors/);
    expect((await failure(runJob(makeJob({ numWay: 3, numVector: 5, numField: 10, decomposition: { numProcVector: 3 } })))).message).toMatch(/too few vectors/);
  });
  it('phases beyond the maximum', async () => {
    expect((await failure(runJob(makeJob({ numVector: 40, numField: 10, decomposition: { numProcVector: 3, numPhase: 3 } })))).message).toMatch(/exceeds the maximum 2/);
  });
  it('stage range', async () => {
    await failure(runJob(makeJob({ numWay: 3, numVector: 40, numField: 10, decomposition: { numStage: 2, stageMin: 1, stageMax: 2 } })));
  });
  it('input file of the wrong size', async () => {
    const path = join(dir, 'short.bin');
    writeFileSync(path, new Uint8Array(10 * 3 - 1));
    const e = await failure(runJob(makeJob({ numVector: 10, numField: 12, source: { kind: 'file', path } })));
    expect(e.message).toContain(path);
    writeFileSync(path, new Uint8Array(10 * 3 + 1));
    expect((await failure(runJob(makeJob({ numVector: 10, numField: 12, source: { kind: 'file', path } })))).message).toContain(path);
  });
  it('existing output without --force', async () => {
    const stub = join(dir, 'out');
    await runJob(makeJob({ numVector: 6, numField: 10, outputStub: stub }));
    expect((await failure(runJob(makeJob({ numVector: 6, numField: 10, outputStub: stub })))).message).toMatch(/--force/);
    const again = await runJob(makeJob({ numVector: 6, numField: 10, outputStub: stub, force: true }));
    expect(again.outputFiles).toHaveLength(1);
  });
});
