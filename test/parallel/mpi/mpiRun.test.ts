// `snptally run` under mpirun with 1–6 processes: checksums equal SPEC §5 and the single-process or in-process run.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../../src/core/syntheticProblems.js';
import type { RankDevice } from '../../../src/engine/index.js';
import { packFieldValues, writePackedVectorFile } from '../../../src/io/packedVectorFile.js';
import { gpuIndexLayerGate, webgpuGate } from '../../helpers/webgpuGate.js';
import { MESSAGE_PIECE_BYTES } from '../../../src/parallel/mpi/index.js';
import { CLI_MAIN, mpiUnavailableReason, runCliDirect, runUnderMpirun } from './mpiHarness.js';

/** SPEC §5 reference checksums of the problems used here. */
const SPEC = {
  ccc2Random: '0-34600668891914-795881718560018816',
  ccc2SparseRandom: '0-33543338342814-112679650647204196',
  ccc3Random: '0-144962007142596-694338058451516346',
  duo2SparseRandom: '0-25544782430596-363343116734123798',
  ccc3Analytic: '0-20352394550-918734323983581184',
} as const;

const RANDOM2 = ['--vectors', '48', '--fields', '100'];
const RANDOM3 = ['--way', '3', '--vectors', '36', '--fields', '100'];

interface RunCase {
  readonly numProcs: number;
  readonly args: readonly string[];
  /** SPEC §5 checksum when the run covers the whole problem; null for a slice of phases or stages. */
  readonly spec: string | null;
}

/** Every process count 1–6, 2-way and 3-way, npf 2 and npr 2, phases, stages and slices of them, a split half diagonal. */
const CASES: readonly RunCase[] = [
  { numProcs: 1, args: [...RANDOM2], spec: SPEC.ccc2Random },
  { numProcs: 2, args: [...RANDOM3, '--npv', '2', '--stages', '2'], spec: SPEC.ccc3Random },
  { numProcs: 2, args: ['--way', '3', '--problem', 'analytic', '--vectors', '4', '--fields', '2', '--npf', '2'], spec: SPEC.ccc3Analytic },
  { numProcs: 3, args: [...RANDOM2, '--sparse', '--npv', '3', '--phases', '2'], spec: SPEC.ccc2SparseRandom },
  { numProcs: 4, args: [...RANDOM2, '--npv', '2', '--npf', '2'], spec: SPEC.ccc2Random },
  { numProcs: 4, args: [...RANDOM3, '--npv', '2', '--npr', '2', '--stages', '3', '--stage-min', '1', '--stage-max', '2'], spec: null },
  { numProcs: 5, args: [...RANDOM2, '--npv', '5', '--phases', '3', '--phase-min', '1', '--phase-max', '1'], spec: null },
  { numProcs: 6, args: [...RANDOM2, '--metric', 'duo', '--sparse', '--npv', '3', '--npr', '2', '--phases', '2'], spec: SPEC.duo2SparseRandom },
  { numProcs: 6, args: [...RANDOM3, '--npv', '3', '--npf', '2', '--stages', '2'], spec: SPEC.ccc3Random },
  // The balanced 2-way plan: each rank of a block pair receives the other's block and computes half of it.
  { numProcs: 2, args: [...RANDOM2, '--sparse', '--npv', '2', '--half-diagonal', 'split'], spec: SPEC.ccc2SparseRandom },
  { numProcs: 4, args: [...RANDOM2, '--npv', '4', '--phases', '2', '--half-diagonal', 'split'], spec: SPEC.ccc2Random },
];

const unavailable = mpiUnavailableReason();
const gpu = await webgpuGate();
const layer = gpuIndexLayerGate();
if (unavailable !== null && process.env.CI !== 'true') console.warn(`MPI run tests skipped: ${unavailable}`);

const workDir = mkdtempSync(join(tmpdir(), 'snptally-mpi-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The JSON report of a run. */
interface RunJson {
  readonly checksum: string;
  readonly entries: number;
  readonly numRanks: number;
  readonly outputFiles: string[];
}

function mpiRun(numProcs: number, args: readonly string[], env: Record<string, string> = {}) {
  return runUnderMpirun(numProcs, [CLI_MAIN, 'run', ...args], env);
}

function parseOneReport(stdout: string): RunJson {
  const lines = stdout.trim().split('\n');
  // Only world rank 0 prints.
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as RunJson;
}

describe.skipIf(unavailable !== null && process.env.CI !== 'true')('snptally run under mpirun', () => {
  it('is available (required under CI=true)', () => {
    expect(unavailable).toBeNull();
  });

  for (const c of CASES) {
    it(`-np ${c.numProcs} ${c.args.join(' ')}`, () => {
      const mpi = mpiRun(c.numProcs, [...c.args, '--json']);
      expect(mpi.stderr).toBe('');
      expect(mpi.status).toBe(0);
      const report = parseOneReport(mpi.stdout);
      expect(report.numRanks).toBe(c.numProcs);
      // The same decomposition in one process (in-process ranks), and the whole problem on one rank.
      const reference = runCliDirect(['run', ...c.args, '--json']);
      expect(reference.status).toBe(0);
      const inProcess = JSON.parse(reference.stdout) as RunJson;
      expect(report.checksum).toBe(inProcess.checksum);
      expect(report.entries).toBe(inProcess.entries);
      if (c.spec !== null) {
        const single = runCliDirect(['run', ...withoutGrid(c.args), '--json']);
        expect((JSON.parse(single.stdout) as RunJson).checksum).toBe(c.spec);
        expect(report.checksum).toBe(c.spec);
      }
    });
  }

  it('reads an input file on every rank (each its vector block and field slab): the SPEC checksum of its problem', () => {
    // The random problem of RANDOM2 written as a packed file: runs over it must give that problem's checksum.
    const path = join(workDir, 'random48x100.bin');
    writePackedVectorFile(path, packFieldValues(48, 100, (v, f) => randomProblemCode(v, f, 100)), 48, 100);
    for (const grid of [['--npv', '2', '--npf', '2'], ['--npv', '4', '--half-diagonal', 'split']]) {
      const mpi = mpiRun(4, [...RANDOM2, '--input', path, ...grid, '--json']);
      expect(mpi.stderr).toBe('');
      expect(mpi.status).toBe(0);
      expect(parseOneReport(mpi.stdout).checksum).toBe(SPEC.ccc2Random);
    }
  });

  it('writes the same per-rank files as the in-process run; ranks of field slab ≠ 0 leave theirs empty', () => {
    const args = [...RANDOM2, '--npv', '2', '--npf', '2', '--json'];
    const mpi = mpiRun(4, [...args, '--output', join(workDir, 'mpi')]);
    expect(mpi.status).toBe(0);
    const files = parseOneReport(mpi.stdout).outputFiles;
    expect(files).toEqual([0, 1, 2, 3].map((rank) => join(workDir, `mpi_${rank}.bin`)));
    const local = runCliDirect(['run', ...args, '--output', join(workDir, 'local')]);
    expect(local.status).toBe(0);
    for (let rank = 0; rank < 4; rank++) {
      const mpiBytes = readFileSync(join(workDir, `mpi_${rank}.bin`));
      expect(mpiBytes.equals(readFileSync(join(workDir, `local_${rank}.bin`)))).toBe(true);
      // Rank = field + npf·vector: odd ranks hold field slab 1 and write no records.
      expect(mpiBytes.length === 0).toBe(rank % 2 === 1);
    }
  });

  it('a failing rank aborts the job with its message, once; no file looks complete', () => {
    const stub = join(workDir, 'failed');
    const mpi = mpiRun(4, [...RANDOM2, '--npv', '2', '--npf', '2', '--output', stub], { SNPTALLY_DEBUG_FAIL_RANK: '2' });
    expect(mpi.status).not.toBe(0);
    expect(mpi.status).not.toBeNull();
    const message = 'snptally: internal error: rank 2: induced failure of rank 2 (SNPTALLY_DEBUG_FAIL_RANK)';
    expect(mpi.stderr.split('\n').filter((line) => line.includes('induced failure'))).toEqual([message]);
    // Ranks the launcher stops say which rank they are, so the one message above stays the job's only error.
    const others = mpi.stderr.split('\n').filter((line) => line.startsWith('snptally:') && line !== message);
    for (const line of others) expect(line).toMatch(/^snptally: rank [013]: interrupted \(SIGTERM\); removed \d+ unfinished output file\(s\)$/);
    expect(mpi.stdout).toBe('');
    const left = readdirSync(workDir).filter((name) => name.startsWith('failed_'));
    expect(left.filter((name) => name.endsWith('.bin'))).toEqual([]);
  });

  it.skipIf(!gpu.available || !layer.built)(`--backend webgpu: each process takes the GPU of its node-local rank (${gpu.description})`, () => {
    const mpi = mpiRun(3, [...RANDOM2, '--backend', 'webgpu', '--npv', '3', '--json']);
    // Dawn warns on lavapipe about reduced limits; nothing else may appear.
    expect(mpi.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('Warning: '))).toEqual([]);
    expect(mpi.status).toBe(0);
    const report = parseOneReport(mpi.stdout) as RunJson & { rankDevices: RankDevice[] };
    expect(report.checksum).toBe(SPEC.ccc2Random);
    const numGpus = report.rankDevices[0].gpuCount ?? 0;
    expect(numGpus).toBeGreaterThanOrEqual(1);
    // One node: node-local ranks are the world ranks.
    expect(report.rankDevices.map((d) => [d.rank, d.gpuIndex, d.gpuCount])).toEqual([0, 1, 2].map((rank) => [rank, rank % numGpus, numGpus]));
  });

  // Blocks of 12 MiB: two MPI pieces each (MESSAGE_PIECE_BYTES), which the GPU takes as they arrive.
  it.skipIf(!gpu.available)(`--backend webgpu with blocks of several MPI pieces (the GPU may take them as they arrive) gives the CPU's checksum (${gpu.description})`, () => {
    const problem = ['--vectors', '48', '--fields', String(1 << 21)];
    // 24 vectors per block, 2 planes of 2^21 bits each.
    expect(24 * 2 * ((1 << 21) / 8)).toBeGreaterThan(MESSAGE_PIECE_BYTES);
    const mpi = mpiRun(2, [...problem, '--npv', '2', '--half-diagonal', 'split', '--backend', 'webgpu', '--json']);
    expect(mpi.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('Warning: '))).toEqual([]);
    expect(mpi.status).toBe(0);
    const cpu = runCliDirect(['run', ...problem, '--backend', 'cpu', '--json']);
    expect(cpu.status).toBe(0);
    expect(parseOneReport(mpi.stdout).checksum).toBe((JSON.parse(cpu.stdout) as RunJson).checksum);
  });

  it('a grid that does not match the number of processes is refused once, before any work', () => {
    const mpi = mpiRun(3, [...RANDOM2, '--npv', '2']);
    expect(mpi.status).toBe(1);
    expect(mpi.stderr.split('\n').filter((line) => line.startsWith('snptally:'))).toEqual([
      'snptally: the MPI launcher started 3 processes but --npv 2 × --npf 1 × --npr 1 = 2 ranks; give a grid of 3 ranks (e.g. --npv 3)',
    ]);
    expect(mpi.stdout).toBe('');
  });

  it('a job over --memory is refused once, counting every process of the host, and leaves no file', () => {
    // One rank's process is estimated at over 75 MiB (Node and MPI alone): one fits in 150 MiB, two on the host do not.
    const stub = join(workDir, 'memory');
    const mpi = mpiRun(2, [...RANDOM2, '--npv', '2', '--memory', '150', '--output', stub]);
    expect(mpi.status).toBe(1);
    const lines = mpi.stderr.split('\n').filter((line) => line.startsWith('snptally:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^snptally: estimated peak host memory .* \(2 processes of .*\) exceeds --memory 150 MiB .*raise --memory$/);
    expect(mpi.stdout).toBe('');
    expect(readdirSync(workDir).filter((name) => name.startsWith('memory'))).toEqual([]);
  });
});

/** The same options for one rank (the checksum does not depend on the decomposition, phases or stages). */
function withoutGrid(args: readonly string[]): string[] {
  const gridOptions = new Set(['--npv', '--npf', '--npr', '--phases', '--stages']);
  const out: string[] = [];
  for (let idx = 0; idx < args.length; idx++) {
    if (gridOptions.has(args[idx])) idx++;
    else out.push(args[idx]);
  }
  return out;
}
