// Input conversion benchmark: `snptally prepare` against `plink1.9 --make-bed` reading the same VCF (plain and
// gzip-compressed) and the same PLINK fileset, in one run; prints wall times and the ratios.
//
//   node dist/tools/bench-prepare.js [--snps 20000] [--samples 2000] [--missing 0.02] [--reps 3] [--json]
//
// Data: `plink1.9 --dummy <samples> <snps> <missing>`, written as a fileset and by `--recode vcf` (PLINK's VCF:
// GT only, A1 as ALT), then gzip-compressed by zlib. What is timed, end to end as processes (best of --reps):
//   snptally  prepare INPUT --out FILE --force   packed file + sidecar (SNP and sample IDs, SHA-256 of the file)
//   PLINK     --vcf INPUT --make-bed              .bed/.bim/.fam (the conversion PLINK users run first)
//   PLINK     --bfile INPUT --make-bed            a fileset rewritten: PLINK's own reading speed
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import {
  createToolProgram, parseFraction, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';
import { bestProcessSeconds } from './lib/timedProcess.js';
import { bundledCliMain } from './lib/bundledCli.js';

/** The command line, named as its long options. */
interface BenchPrepareOptions {
  readonly snps: number;
  readonly samples: number;
  readonly missing: number;
  readonly reps: number;
  readonly json: boolean;
}

const options = parseToolOptions<BenchPrepareOptions>(createToolProgram('bench-prepare',
  'wall times of snptally prepare and plink1.9 --make-bed on one VCF (plain, gzip) and one fileset')
  .addOption(valueOption('--snps <n>', 'SNPs of the plink1.9 --dummy data', parsePositiveInteger, '20000'))
  .addOption(valueOption('--samples <n>', 'samples of the --dummy data', parsePositiveInteger, '2000'))
  .addOption(valueOption('--missing <rate>', 'fraction of missing calls, 0 to 1', parseFraction, '0.02'))
  .addOption(valueOption('--reps <n>', 'runs of each command (the best counts)', parsePositiveInteger, '3'))
  .option('--json', 'print one JSON object instead of text', false));

// The package's bin (the bundle), as a user runs it.
const CLI_MAIN = bundledCliMain();

const dir = mkdtempSync(join(tmpdir(), 'snptally-bench-prepare-'));
try {
  const data = join(dir, 'data');
  const plink = (args: string[]): void => { execFileSync('plink1.9', [...args, '--allow-no-sex'], { stdio: 'ignore' }); };
  plink(['--dummy', String(options.samples), String(options.snps), String(options.missing), '--seed', '1', '--make-bed', '--out', data]);
  plink(['--bfile', data, '--recode', 'vcf', '--out', data]);
  await pipeline(createReadStream(`${data}.vcf`), createGzip(), createWriteStream(`${data}.vcf.gz`));

  const rows = [
    { input: 'VCF', path: `${data}.vcf`, plinkArgs: ['--vcf', `${data}.vcf`] },
    { input: 'VCF, gzip', path: `${data}.vcf.gz`, plinkArgs: ['--vcf', `${data}.vcf.gz`] },
    { input: 'PLINK fileset', path: data, plinkArgs: ['--bfile', data] },
  ].map(({ input, path, plinkArgs }) => {
    const snptally = bestProcessSeconds(process.execPath, [CLI_MAIN, 'prepare', path, '--out', join(dir, 'out.packed'), '--force'], options.reps);
    const plinkSeconds = bestProcessSeconds('plink1.9', [...plinkArgs, '--make-bed', '--allow-no-sex', '--out', join(dir, 'plink-out')], options.reps);
    const bytes = statSync(path.endsWith('.vcf') || path.endsWith('.gz') ? path : `${path}.bed`).size;
    return {
      input, bytes, snptallySeconds: +snptally.toFixed(3), plinkSeconds: +plinkSeconds.toFixed(3),
      plinkOverSnptally: +(plinkSeconds / snptally).toFixed(2),
    };
  });
  if (options.json) {
    console.log(JSON.stringify({ snps: options.snps, samples: options.samples, missingRate: options.missing, reps: options.reps, rows }));
  } else {
    console.log(`input conversion, ${options.snps} SNPs × ${options.samples} samples, ${options.missing} missing, best of ${options.reps}`);
    for (const row of rows) {
      console.log(`${row.input.padEnd(14)} ${(row.bytes / 1e6).toFixed(1).padStart(8)} MB   snptally prepare ${row.snptallySeconds.toFixed(3)} s   `
        + `plink1.9 --make-bed ${row.plinkSeconds.toFixed(3)} s   (plink / snptally ${row.plinkOverSnptally})`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
