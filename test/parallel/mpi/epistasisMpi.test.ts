// `snptally epistasis` under mpirun: one rank per process; the top-N lists equal the brute-force reference (tables
// counted from the genotypes here) and the in-process run of the same decomposition, for 2-, 3- and 4-way, every
// score, with missing calls on ragged sizes; threshold record files byte-equal to the in-process ones; a fileset
// input and a wrong world size refused in one line from world rank 0.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naiveEpistasis, randomCaseControlData, type CaseControlData, type Score } from '../../analyses/epistasis/naiveEpistasis.js';
import { prepareCaseControl, writeCaseControlFileset } from '../../analyses/epistasis/epistasisFiles.js';
import { CLI_MAIN, mpiUnavailableReason, runCliDirect, runUnderMpirun } from './mpiHarness.js';

const unavailable = mpiUnavailableReason();
const workDir = mkdtempSync(join(tmpdir(), 'snptally-epistasis-mpi-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** What `epistasis --json` prints of each tuple. */
interface TopJson {
  readonly top: readonly { readonly vectors: number[]; readonly score: number; readonly controls: number[]; readonly cases: number[] }[];
}

interface SearchCase {
  readonly order: 2 | 3 | 4;
  readonly score: Score;
  readonly numProcs: number;
  readonly grid: readonly string[];
}

/** Each order and score once; block-circulant pairs, triple slabs with stages, quads over replicas. */
const CASES: readonly SearchCase[] = [
  { order: 2, score: 'k2', numProcs: 3, grid: ['--npv', '3'] },
  { order: 2, score: 'ig', numProcs: 4, grid: ['--npv', '2', '--npr', '2', '--phases', '2'] },
  { order: 3, score: 'mi', numProcs: 2, grid: ['--npv', '2', '--stages', '2'] },
  { order: 3, score: 'ig', numProcs: 3, grid: ['--npv', '3'] },
  { order: 4, score: 'mi', numProcs: 2, grid: ['--npr', '2'] },
  { order: 4, score: 'k2', numProcs: 2, grid: ['--npv', '2', '--stages', '2'] },
];

const TOP = 12;

describe.skipIf(unavailable !== null && process.env.CI !== 'true')('snptally epistasis under mpirun', () => {
  let data: CaseControlData;
  let packedPath: string;
  beforeAll(async () => {
    // 23 SNPs × 101 samples (not a multiple of 32), 3% missing calls.
    data = randomCaseControlData(23, 101, 17, 0.03);
    const prefix = join(workDir, 'cc');
    writeCaseControlFileset(prefix, data);
    packedPath = join(workDir, 'cc.packed');
    await prepareCaseControl(prefix, packedPath);
  });

  it('is available (required under CI=true)', () => {
    expect(unavailable).toBeNull();
  });

  for (const c of CASES) {
    it(`--order ${c.order} --score ${c.score}, -np ${c.numProcs} ${c.grid.join(' ')}: the reference's top ${TOP} and the in-process run's`, () => {
      const args = ['epistasis', '--input', packedPath, '--order', String(c.order), '--score', c.score, '--top', String(TOP), '--threads', '1', '--json'];
      const mpi = runUnderMpirun(c.numProcs, [CLI_MAIN, ...args, ...c.grid]);
      expect(mpi.stderr).toBe('');
      expect(mpi.status).toBe(0);
      const lines = mpi.stdout.trim().split('\n');
      // Only world rank 0 prints.
      expect(lines).toHaveLength(1);
      const got = JSON.parse(lines[0]) as TopJson;
      const inProcess = runCliDirect([...args, ...c.grid]);
      expect(inProcess.status).toBe(0);
      expect(got.top).toEqual((JSON.parse(inProcess.stdout) as TopJson).top);
      const want = naiveEpistasis(data, c.order, c.score);
      expect(got.top).toHaveLength(TOP);
      got.top.forEach((hit, rank) => {
        expect(hit.score).toBeCloseTo(want[rank].score, 9);
        const reference = want.find((tuple) => tuple.snps.join(',') === hit.vectors.join(','))!;
        expect(hit.controls).toEqual(reference.controls);
        expect(hit.cases).toEqual(reference.cases);
      });
    });
  }

  it('writes the same threshold record files as the in-process run', () => {
    const args = (stub: string) => [
      'epistasis', '--input', packedPath, '--order', '3', '--score', 'mi', '--score-threshold', '0.08', '--out', stub, '--npv', '3', '--json',
    ];
    const mpi = runUnderMpirun(3, [CLI_MAIN, ...args(join(workDir, 'mpi'))]);
    expect(mpi.stderr).toBe('');
    expect(mpi.status).toBe(0);
    const local = runCliDirect(args(join(workDir, 'local')));
    expect(local.status).toBe(0);
    const mpiSummary = JSON.parse(mpi.stdout) as { records: number };
    expect(mpiSummary.records).toBe((JSON.parse(local.stdout) as { records: number }).records);
    // Every triple with MI ≥ 0.08 by the reference, and no other.
    expect(mpiSummary.records).toBe(naiveEpistasis(data, 3, 'mi').filter((tuple) => tuple.score >= 0.08).length);
    expect(mpiSummary.records).toBeGreaterThan(0);
    for (let rank = 0; rank < 3; rank++) {
      expect(readFileSync(join(workDir, `mpi_${rank}.bin`)).equals(readFileSync(join(workDir, `local_${rank}.bin`)))).toBe(true);
    }
  });

  it('refuses a fileset (prepare it once) and a world size unlike the grid, one line from world rank 0', () => {
    const fileset = runUnderMpirun(2, [CLI_MAIN, 'epistasis', '--bfile', join(workDir, 'cc'), '--npv', '2']);
    expect(fileset.status).toBe(1);
    expect(fileset.stderr.split('\n').filter((line) => line.startsWith('snptally:'))).toEqual([
      `snptally: ${join(workDir, 'cc')}: a PLINK fileset is not read directly under an MPI launcher; ` +
      `run \`snptally prepare ${join(workDir, 'cc')} --case-control --out FILE\` once and give --input FILE`,
    ]);
    const size = runUnderMpirun(3, [CLI_MAIN, 'epistasis', '--input', packedPath, '--npv', '2']);
    expect(size.status).toBe(1);
    expect(size.stderr.split('\n').filter((line) => line.startsWith('snptally:'))).toEqual([
      'snptally: the job has 2 ranks (npv 2 × npf 1 × npr 1) but 3 processes run it',
    ]);
  });
});
