// Ranks as worker threads: point-to-point, collectives, split, progress, and failures that end the launch without hanging.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { launchInProcessRanks, RankError } from '../../src/parallel/index.js';
import { NOTE_BYTES } from './fixtures/commEntries.js';

/** The compiled fixture module next to this compiled test in dist/. */
const entryModuleUrl = new URL('./fixtures/commEntries.js', import.meta.url);

const launch = (numRanks: number, entryExportName: string, payload: unknown = null) =>
  launchInProcessRanks({ numRanks, entryModuleUrl, entryExportName, payload });

/** What rank `rank` wrote into its slot of a fixture's shared notes. */
const noteOf = (notes: SharedArrayBuffer, rank: number): string =>
  new TextDecoder().decode(new Uint8Array(notes, rank * NOTE_BYTES, NOTE_BYTES)).replace(/\0+$/, '');

describe('launchInProcessRanks', () => {
  it('passes messages around a ring; the sender may reuse its buffer', async () => {
    const results = await launch(5, 'ringExchange');
    expect(results).toEqual([4, 0, 1, 2, 3].map((left) => [left, 10 * left]));
  });

  it('runs a single rank that sends to itself', async () => {
    expect(await launch(1, 'ringExchange')).toEqual([[0, 0]]);
  });

  it('gives every rank the same exact allReduceSum', async () => {
    const numRanks = 4;
    const results = (await launch(numRanks, 'allReduce')) as Array<{ uint32: number[]; float64: number[]; fractions: number[] }>;
    const ranks = [0, 1, 2, 3];
    const total = (f: (rank: number) => number) => ranks.reduce((acc, rank) => acc + f(rank), 0);
    expect(results[0].uint32).toEqual([6, 4, 4 * (0xffff_ffff >>> 4), 6000]);
    expect(results[0].float64).toEqual([4 * (2 ** 53 / 8 - 1) - 6, -6, 3]);
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0].fractions[0]).toBeCloseTo(total((r) => 0.1 * (r + 1)), 12);
  });

  it('gives every rank the error of an invalid allReduceSum (Uint32 overflow, lengths) instead of hanging', { timeout: 20_000 }, async () => {
    const results = await launch(3, 'overflowingAllReduce');
    expect(results).toEqual([0, 1, 2].map(() => ({
      overflow: `allReduceSum: Uint32 sum ${3 * 0x8000_0000} exceeds 2^32 − 1`,
      lengths: "allReduceSum: length 3 differs from root's 2",
      after: [0 + 1 + 2],
    })));
  });

  it('splits with MPI_Comm_split semantics', async () => {
    const results = (await launch(6, 'splitHalves')) as Array<{ subRank: number; subSize: number; members: number[]; rootRank: number; pairs: number[] }>;
    expect(results.map((r) => r.subSize)).toEqual([3, 3, 3, 3, 3, 3]);
    // Key −rank: the highest world rank of each parity is rank 0 of its half.
    expect(results.map((r) => r.subRank)).toEqual([2, 2, 1, 1, 0, 0]);
    expect(results.map((r) => r.rootRank)).toEqual([4, 5, 4, 5, 4, 5]);
    expect(results[0].members).toEqual([0, 2, 4]);
    expect(results[1].members).toEqual([1, 3, 5]);
    expect(results.map((r) => r.pairs)).toEqual([[0, 1], [0, 1], [2, 3], [2, 3], [4, 5], [4, 5]]);
  });

  it('keeps message order per (source, tag)', async () => {
    const results = (await launch(2, 'tagOrder')) as number[][];
    const indices = Array.from({ length: 50 }, (_, idx) => idx);
    expect(results[1]).toEqual([...indices.map((idx) => -idx), ...indices]);
  });

  it('sums progress over ranks', async () => {
    const reports: Array<[number, number]> = [];
    const results = await launchInProcessRanks({
      numRanks: 3,
      entryModuleUrl,
      entryExportName: 'progressSteps',
      payload: { echo: 'payload' },
      onProgress: (done, total) => reports.push([done, total]),
    });
    expect(results).toEqual([{ echo: 'payload' }, { echo: 'payload' }, { echo: 'payload' }]);
    expect(reports.at(-1)).toEqual([9, 9]);
    for (const [done, total] of reports) expect(done).toBeLessThanOrEqual(total);
  });

  it('rejects with the failing rank and its message instead of hanging', { timeout: 20_000 }, async () => {
    const failure = launch(4, 'failingRank');
    await expect(failure).rejects.toThrow('rank 2: induced failure');
    await expect(failure).rejects.toBeInstanceOf(RankError);
  });

  it('stops the other ranks through their own code: their receives fail, then their threads end', { timeout: 20_000 }, async () => {
    const notes = new SharedArrayBuffer(4 * NOTE_BYTES);
    await expect(launch(4, 'stoppedWhileReceiving', { notes })).rejects.toThrow('rank 2: induced failure');
    expect([0, 1, 3].map((rank) => noteOf(notes, rank))).toEqual(Array(3).fill('stopped: rank 2: induced failure'));
    expect(noteOf(notes, 2)).toBe('');
  });

  it('fails the job with a rank\'s unhandled rejection and unwinds that rank\'s own code too', { timeout: 20_000 }, async () => {
    const notes = new SharedArrayBuffer(3 * NOTE_BYTES);
    await expect(launch(3, 'strayRejection', { notes })).rejects.toThrow('rank 1: stray failure');
    // Rank 1's receive failed with its stray error: its thread was not ended under its code (nor a GPU device).
    expect([0, 1, 2].map((rank) => noteOf(notes, rank))).toEqual(['stopped: rank 1: stray failure', 'stray failure', 'stopped: rank 1: stray failure']);
  });

  it('ends every rank when one aborts', { timeout: 20_000 }, async () => {
    await expect(launch(3, 'abortingRank')).rejects.toThrow('rank 1: bad input on rank 1');
  });

  it('keeps a rank UserError a UserError', { timeout: 20_000 }, async () => {
    const failure = launch(2, 'userErrorRank');
    await expect(failure).rejects.toBeInstanceOf(UserError);
    await expect(failure).rejects.toThrow('rank 0: no such file');
  });

  it('rejects a missing entry export and a bad rank count', async () => {
    await expect(launch(2, 'noSuchEntry')).rejects.toThrow(/rank \d: .*no function export 'noSuchEntry'/);
    await expect(launch(0, 'ringExchange')).rejects.toBeInstanceOf(UserError);
  });
});
