// `snptally plink --r2` in PLINK's default table mode (LD windows, same chromosome only) against plink1.9 with the
// same flags: the same .ld byte for byte. The front end translates to `run --ld-window-kb --ld-window --ld-window-r2`
// (the engine's windows), so these cases need that branch of the engine.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';
import { runPlink } from './plinkLdFixture.js';
import { writeLdFixture } from './report/ldFixture.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-plink-windows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, 'd');

// Linkage that decays with distance, so PLINK's default table (r² ≥ 0.2 within 10 SNPs and 1 Mb) has rows.
beforeAll(() => {
  writeLdFixture(data, { numSnp: 160, numSample: 90, chromosomeOneSnps: 90, seed: 11 });
});

describe('snptally plink --r2 with LD windows', () => {
  const cases: Array<readonly string[]> = [
    ['--r2'],
    ['--r2', '--ld-window-r2', '0'],
    ['--r2', '--ld-window', '5', '--ld-window-kb', '200', '--ld-window-r2', '0'],
    ['--r2', '--ld-window', '99999', '--ld-window-kb', '400', '--ld-window-r2', '0.01'],
    ['--r2', 'dprime', '--ld-window-r2', '0.05'],
    ['--r2', 'gz', '--ld-window', '3', '--ld-window-r2', '0'],
  ];
  cases.forEach((flags, caseIdx) => {
    it(`writes plink1.9's .ld byte for byte: ${flags.join(' ')}`, () => {
      const [theirs, ours] = [join(dir, `p${caseIdx}`), join(dir, `s${caseIdx}`)];
      runPlink(['--bfile', data, ...flags, '--out', theirs]);
      const outcome = runCli(['plink', '--bfile', data, ...flags, '--out', ours]);
      expect(outcome.stderr).toBe('');
      expect(outcome.status).toBe(0);
      const compressed = flags.includes('gz');
      const suffix = compressed ? '.ld.gz' : '.ld';
      const text = (path: string): string => (compressed ? gunzipSync(readFileSync(path)) : readFileSync(path)).toString('latin1');
      const expected = text(`${theirs}${suffix}`);
      expect(expected.split('\n').length).toBeGreaterThan(10);
      expect(text(`${ours}${suffix}`)).toBe(expected);
    });
  });
});
