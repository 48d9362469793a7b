// PLINK's `.ld` table through its bulk path (ldTableReport.ts: pairs straight from a same-chromosome window, or a run's
// records; lines made natively in batches, several in flight) against the per-pair JS path it replaced (forceJs: each
// pair's table by GenotypeTables, each line a string) on data with missing calls and several chromosomes, over windows,
// thresholds, D/D′, .gz, batch sizes and threads; and `snptally plink` against plink1.9's own `.ld`.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLdTable, type LdTableSource } from '../../src/cli/plink/ldTableReport.js';
import { readRunInfo } from '../../src/cli/runInfoFile.js';
import { parseWindowOptions, windowJobOf } from '../../src/cli/windowOptions.js';
import { readSidecar, TextOutput, type PreparedSidecar } from '../../src/io/index.js';
import type { DprimeKind } from '../../src/cli/plink/twoLocusLd.js';
import { runCli } from './cliHarness.js';
import { runPlink, writeLdFixture } from './plinkLdFixture.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-ld-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, 'd');
const packed = join(dir, 'd.packed');
let sidecar: PreparedSidecar;

beforeAll(() => {
  // plink1.9 --dummy genotypes (3 % missing) on chromosomes 1, 5, 2 in that order, IDs of several lengths.
  writeLdFixture(data, 230, 450, 0.03);
  const prepared = runCli(['prepare', '--bfile', data, '--out', packed, '--json']);
  expect(prepared.stderr).toBe('');
  sidecar = readSidecar(`${packed}.json`);
});

let fileIdx = 0;
/** The table `writeLdTable` writes for `source`'s pairs, as text (gunzipped for a .gz name). */
async function tableText(source: Omit<LdTableSource, 'sidecar' | 'packedPath'>, options: { dprime: DprimeKind | null; minR2: number }, gz = false): Promise<string> {
  const path = join(dir, `t${fileIdx++}.ld${gz ? '.gz' : ''}`);
  const output = await TextOutput.toFile(path, { force: false, gzipMembers: gz });
  await writeLdTable({ ...source, sidecar, packedPath: packed }, options, output);
  await output.commit();
  const bytes = readFileSync(path);
  return (gz ? gunzipSync(bytes) : bytes).toString('latin1');
}

function windowOf(numVariants: string, kb: string): LdTableSource['pairs'] {
  const options = parseWindowOptions({ ldWindow: numVariants, ldWindowKb: kb }, { metric: 'r2', numWay: 2 });
  const job = windowJobOf(options, { path: packed, sidecar });
  if (job === null) throw new Error('no window');
  return { window: job.limits };
}

describe('the .ld table in bulk equals the per-pair JS path', () => {
  const cases: Array<{ numVariants: string; kb: string; dprime: DprimeKind | null; minR2: number }> = [
    { numVariants: '99999', kb: '1000', dprime: null, minR2: 0 },
    { numVariants: '10', kb: '1000', dprime: null, minR2: 0.02 },
    { numVariants: '3', kb: '200', dprime: null, minR2: 0.001 },
    { numVariants: '99999', kb: '5000', dprime: 'dprime', minR2: 0 },
    { numVariants: '40', kb: '2000', dprime: 'dprime-signed', minR2: 0.003 },
    { numVariants: '99999', kb: '700', dprime: 'd', minR2: 0.01 },
  ];
  for (const { numVariants, kb, dprime, minR2 } of cases) {
    it(`windows of ${numVariants} SNPs and ${kb} kb, ${dprime ?? 'r²'}, ≥ ${minR2}: batches of 2^14 and of 777 pairs, 1 and 3 in flight`, async () => {
      const pairs = windowOf(numVariants, kb);
      const expected = await tableText({ pairs, threads: 1, forceJs: true }, { dprime, minR2 });
      expect(expected.split('\n').length).toBeGreaterThan(100);
      expect(await tableText({ pairs, threads: 1 }, { dprime, minR2 })).toBe(expected);
      expect(await tableText({ pairs, threads: 3, pairsPerBatch: 777 }, { dprime, minR2 })).toBe(expected);
      expect(await tableText({ pairs, threads: 2, pairsPerBatch: 1 }, { dprime, minR2 }, true)).toBe(expected);
    });
  }

  it('from a run\'s records in two rank files (inter-chr, every pair past a threshold): sorted by position, as the JS path', async () => {
    const stub = join(dir, 'run');
    const ran = runCli(['run', '--metric', 'r2', '--input', packed, '--npv', '2', '--threshold', '0.004', '--out', stub, '--json']);
    expect(ran.stderr).toBe('');
    const records = { recordFiles: readRunInfo(`${stub}.run.json`).outputPaths, scratchParent: dir };
    expect(records.recordFiles.length).toBe(2);
    for (const dprime of [null, 'dprime-signed'] as const) {
      const expected = await tableText({ pairs: { records }, threads: 1, forceJs: true }, { dprime, minR2: 0.004 });
      expect(expected.split('\n').length).toBeGreaterThan(1000);
      expect(await tableText({ pairs: { records }, threads: 2, pairsPerBatch: 5000 }, { dprime, minR2: 0.004 })).toBe(expected);
      // Batches over a wide span take the JS path between native ones: still in order.
      expect(await tableText({ pairs: { records }, threads: 2, pairsPerBatch: 300, maxSpanBytes: 300 * 58 }, { dprime, minR2: 0.004 })).toBe(expected);
    }
  });
});

describe('the .ld table of loci that are not all ASCII', () => {
  it('equals the per-pair JS path (UTF-8 IDs, chr-prefixed and other chromosome names)', async () => {
    const utf8 = join(dir, 'utf8');
    copyFileSync(`${data}.bed`, `${utf8}.bed`);
    copyFileSync(`${data}.fam`, `${utf8}.fam`);
    const chromosomes = ['chr1', 'chr1', 'X', 'contig_é'];
    writeFileSync(`${utf8}.bim`, readFileSync(`${data}.bim`, 'utf8').trimEnd().split('\n').map((line, s) => {
      const columns = line.split('\t');
      const id = s % 7 === 3 ? `rs${s}_αβ` : columns[1];
      return [chromosomes[Math.floor((4 * s) / 450)], id, '0', String(1000 + 3000 * s), columns[4], columns[5]].join('\t');
    }).join('\n') + '\n');
    const utf8Packed = `${utf8}.packed`;
    expect(runCli(['prepare', '--bfile', utf8, '--out', utf8Packed]).stderr).toBe('');
    const utf8Sidecar = readSidecar(`${utf8Packed}.json`);
    const options = parseWindowOptions({ ldWindow: '99999', ldWindowKb: '100' }, { metric: 'r2', numWay: 2 });
    const job = windowJobOf(options, { path: utf8Packed, sidecar: utf8Sidecar });
    if (job === null) throw new Error('no window');
    const table = async (forceJs: boolean): Promise<string> => {
      const path = join(dir, `t${fileIdx++}.ld`);
      const output = await TextOutput.toFile(path, { force: false });
      await writeLdTable({ pairs: { window: job.limits }, threads: 2, forceJs, sidecar: utf8Sidecar, packedPath: utf8Packed }, { dprime: null, minR2: 0 }, output);
      await output.commit();
      return readFileSync(path, 'utf8');
    };
    const expected = await table(true);
    expect(expected).toContain('_αβ');
    expect(expected).toContain('contig_é');
    expect(await table(false)).toBe(expected);
  });
});

describe('snptally plink --r2 (windows, bulk text) against plink1.9', () => {
  const cases: Array<readonly string[]> = [
    ['--r2', '--ld-window-kb', '1000', '--ld-window', '99999', '--ld-window-r2', '0'],
    ['--r2', '--ld-window', '7', '--ld-window-r2', '0.01'],
    ['--r2', 'dprime-signed', '--ld-window-kb', '3000', '--ld-window', '99999', '--ld-window-r2', '0'],
    ['--r2', 'd', '--ld-window-r2', '0.001'],
    ['--r2', 'gz', 'dprime', '--ld-window-kb', '500', '--ld-window-r2', '0.002'],
  ];
  cases.forEach((flags, caseIdx) => {
    it(`the same .ld byte for byte: ${flags.join(' ')}`, () => {
      const [theirs, ours] = [join(dir, `p${caseIdx}`), join(dir, `s${caseIdx}`)];
      runPlink(['--bfile', data, ...flags, '--out', theirs]);
      const outcome = runCli(['plink', '--bfile', data, ...flags, '--threads', '2', '--out', ours]);
      expect(outcome.stderr).toBe('');
      expect(outcome.status).toBe(0);
      const suffix = flags.includes('gz') ? '.ld.gz' : '.ld';
      const text = (path: string): string => (suffix === '.ld.gz' ? gunzipSync(readFileSync(path)) : readFileSync(path)).toString('latin1');
      const expected = text(`${theirs}${suffix}`);
      expect(expected.split('\n').length).toBeGreaterThan(100);
      expect(text(`${ours}${suffix}`)).toBe(expected);
      // The window's table needs no run: the log lists prepare alone.
      expect(readFileSync(`${ours}.log`, 'utf8')).not.toMatch(/snptally run /);
    });
  });
});
