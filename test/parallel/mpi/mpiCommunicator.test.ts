// The MPI communicator against the Communicator contract: the same probe, in-process and under mpirun, same reports.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launchInProcessRanks } from '../../../src/parallel/index.js';
import { MESSAGE_PIECE_BYTES, PREFAULT_MIN_BYTES } from '../../../src/parallel/mpi/index.js';
import { digestOf, wordsOf, type ProbeReport } from './fixtures/communicatorProbe.js';
import { mpiUnavailableReason, runUnderMpirun } from './mpiHarness.js';

const here = dirname(fileURLToPath(import.meta.url));
const PROBE_ENTRY = new URL('./fixtures/communicatorProbe.js', import.meta.url).href;
const PROBE_MAIN = resolve(here, 'fixtures/probeUnderMpi.js');
const NUM_RANKS = 3;

const unavailable = mpiUnavailableReason();
if (unavailable !== null && process.env.CI !== 'true') console.warn(`MPI communicator tests skipped: ${unavailable}`);

describe.skipIf(unavailable !== null && process.env.CI !== 'true')('MpiCommunicator', () => {
  it('is available (required under CI=true)', () => {
    expect(unavailable).toBeNull();
  });

  it('reports what the contract says, on 3 ranks, exactly as the in-process communicator does', async () => {
    const mpi = runUnderMpirun(NUM_RANKS, [PROBE_MAIN]);
    expect(mpi.stderr).toBe('');
    expect(mpi.status).toBe(0);
    const mpiReports = mpi.stdout.trim().split('\n').map((line) => JSON.parse(line) as ProbeReport & { localRank: number; localSize: number })
      .sort((x, y) => x.rank - y.rank);
    expect(mpiReports.map((r) => r.rank)).toEqual([0, 1, 2]);
    // One node: node-local ranks are the world ranks.
    expect(mpiReports.map((r) => [r.localRank, r.localSize])).toEqual([[0, 3], [1, 3], [2, 3]]);

    const inProcess = (await launchInProcessRanks({
      numRanks: NUM_RANKS, entryModuleUrl: PROBE_ENTRY, entryExportName: 'communicatorProbe', payload: true,
    })) as ProbeReport[];
    // Threads move a message whole (one progress call). MPI moves it in pieces: a call once the array exists, then
    // one per piece (fewer only if a piece completed before the one ahead of it); the sender writes the message in
    // three steps 20 ms apart, so at least the first piece arrives alone.
    expect(inProcess.map((r) => r.progressCalls)).toEqual([1, 1, 1]);
    for (const report of mpiReports) {
      expect(report.progressCalls).toBeGreaterThanOrEqual(3);
      expect(report.progressCalls).toBeLessThanOrEqual(1 + Math.ceil(report.progressSeen.lastByteEnd / MESSAGE_PIECE_BYTES));
    }
    const sameEverywhere = ({ localRank: _l, localSize: _s, progressCalls: _c, ...report }: ProbeReport & { localRank?: number; localSize?: number }): object => report;
    expect(mpiReports.map(sameEverywhere)).toEqual(inProcess.map(sameEverywhere));

    for (const report of mpiReports) {
      const prev = (report.rank + NUM_RANKS - 1) % NUM_RANKS;
      expect(report.received).toEqual([[prev, 1], [prev, 2, 3], [prev + 0.5], [1 << 17, prev, prev]]);
      expect(report.sharedMessage).toEqual([1 << 18, (prev << 24) + 8, (prev << 24) + (1 << 18) + 7]);
      expect(report.sharedResults).toEqual([true, true, true, true, false]);
      const pieceWords = MESSAGE_PIECE_BYTES / 4;
      expect(report.pieced).toEqual([2 * pieceWords + 3, pieceWords, 0, pieceWords + 1].map((length) => digestOf(wordsOf(prev, length))));
      expect(report.written).toEqual([digestOf(wordsOf(prev + 3, 2 * pieceWords + 5)), digestOf(Uint32Array.of(prev, 12))]);
      expect(report.progressSeen).toEqual({ sameArray: true, rising: true, prefixesFinal: true, lastByteEnd: 4 * (2 * pieceWords + 5) });
      expect(report.readyError).toBe('rows failed');
      expect(report.prepared).toEqual([digestOf(wordsOf(prev + 5, PREFAULT_MIN_BYTES / 4 + 3)), digestOf(wordsOf(prev + 6, 1000))]);
      expect(report.floatSum).toEqual([1 + 2 + 3, 3 * 2 ** 51, -(0 + 1 + 2)]);
      expect(report.uintSum).toEqual([0xffff_fffe, 1, 0 + 1 + 2]);
      expect(report.overflowError).toBe(`allReduceSum: Uint32 sum ${3 * 0x8000_0000} exceeds 2^32 − 1`);
      expect(report.broadcast).toEqual([7, 8, 9, 10, 11]);
      // color rank % 2, key −rank: {2, 0} in that order, and {1}.
      const expectedSplit = { 0: { rank: 1, size: 2, sumOfWorldRanks: 2 }, 1: { rank: 0, size: 1, sumOfWorldRanks: 1 }, 2: { rank: 0, size: 2, sumOfWorldRanks: 2 } }[report.rank];
      expect(report.split).toEqual(expectedSplit);
      expect(report.object.from).toBe('root 2');
      expect(report.object.gathered).toEqual(report.rank === 0 ? ['rank 0 of 3', 'rank 1 of 3', 'rank 2 of 3'] : null);
      expect(report.argumentErrors).toEqual([
        'send: rank 3 is outside 0..2', 'recv: tag must be an integer ≥ 0 (got -1)', 'split: color must be an integer ≥ 0 (got -1)',
      ]);
    }
  });
});
