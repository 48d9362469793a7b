// Relatedness under mpirun (vectors = individuals of a `prepare --individuals` file, missing calls): KING and the
// distances give the single-process checksum, each rank writes the bytes of the in-process run's rank file, and the
// ranks' assembled KING matrix is the single-process one, byte for byte.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePedigreeFileset } from '../../helpers/kingPedigree.js';
import { CLI_MAIN, mpiUnavailableReason, runCliDirect, runUnderMpirun } from './mpiHarness.js';

const unavailable = mpiUnavailableReason();
const workDir = mkdtempSync(join(tmpdir(), 'snptally-relatedness-mpi-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface RunJson {
  readonly checksum: string;
  readonly entries: number;
  readonly outputFiles: string[];
}

describe.skipIf(unavailable !== null && process.env.CI !== 'true')('relatedness runs under mpirun', () => {
  const packedPath = join(workDir, 'pedigree.packed');
  beforeAll(() => {
    // 3 families of 7 and 7 unrelated samples (28 individuals), 2% missing calls.
    writePedigreeFileset(join(workDir, 'pedigree'), { numFamilies: 3, numUnrelated: 7, numSnp: 300, missingRate: 0.02, seed: 11 });
    const prepared = runCliDirect(['prepare', '--bfile', join(workDir, 'pedigree'), '--individuals', '--out', packedPath]);
    expect(prepared.status, prepared.stderr).toBe(0);
  });

  const cases: readonly { readonly metric: string; readonly extra: readonly string[] }[] = [
    { metric: 'king', extra: ['--threshold', '0.05'] },
    { metric: 'distance', extra: [] },
  ];
  for (const { metric, extra } of cases) {
    it(`--metric ${metric}, -np 3 --npv 3: the single-process checksum and the in-process rank files`, () => {
      const args = (stub: string, grid: readonly string[]) => ['run', '--metric', metric, '--input', packedPath, ...extra, ...grid, '--out', stub, '--json'];
      const mpi = runUnderMpirun(3, [CLI_MAIN, ...args(join(workDir, `mpi-${metric}`), ['--npv', '3'])]);
      expect(mpi.stderr).toBe('');
      expect(mpi.status).toBe(0);
      const report = JSON.parse(mpi.stdout) as RunJson;
      const inProcess = runCliDirect(args(join(workDir, `local-${metric}`), ['--npv', '3']));
      const single = runCliDirect(args(join(workDir, `single-${metric}`), []));
      expect(inProcess.status).toBe(0);
      expect(single.status).toBe(0);
      expect(report.checksum).toBe((JSON.parse(single.stdout) as RunJson).checksum);
      expect(report.entries).toBeGreaterThan(0);
      expect(report.outputFiles).toHaveLength(3);
      for (let rank = 0; rank < 3; rank++) {
        const bytes = readFileSync(join(workDir, `mpi-${metric}_${rank}.bin`));
        expect(bytes.equals(readFileSync(join(workDir, `local-${metric}_${rank}.bin`)))).toBe(true);
      }
    });
  }

  it('--metric king --matrix square --matrix-format bin, -np 2 --npv 2: the single-process matrix', () => {
    const args = (stub: string) => ['run', '--metric', 'king', '--input', packedPath, '--matrix', 'square', '--matrix-format', 'bin', '--out', stub, '--json'];
    const mpi = runUnderMpirun(2, [CLI_MAIN, ...args(join(workDir, 'mpi-matrix')), '--npv', '2']);
    expect(mpi.stderr).toBe('');
    expect(mpi.status).toBe(0);
    const single = runCliDirect(args(join(workDir, 'single-matrix')));
    expect(single.status).toBe(0);
    const matrix = readFileSync(join(workDir, 'mpi-matrix.king.bin'));
    // 28 × 28 doubles.
    expect(matrix.length).toBe(28 * 28 * 8);
    expect(matrix.equals(readFileSync(join(workDir, 'single-matrix.king.bin')))).toBe(true);
  });
});
