// `snptally plink --bfile X --fast-epistasis [boost] --epi1 P …`: PLINK 1.9's command line for its case-control pair
// test, run as `snptally prepare` (PLINK's selection, samples ordered by phenotype) and fastEpistasisReport.ts, writing
// <out>.epi.cc, <out>.epi.cc.summary and <out>.log. PLINK's phenotype rules: .fam column 6 or --pheno, and samples of
// unknown sex (.fam column 5 = 0; every VCF sample) count as missing unless --allow-no-sex.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../core/errors.js';
import {
  CLASS_CASE, CLASS_CONTROL, CLASS_MISSING, openGenotypeInput, plinkPathsOf, readFamPhenotypes, readPhenotypeFile,
  readSidecar, readTextLines, stageFile,
} from '../../io/index.js';
import { fastEpistasisReport } from './fastEpistasisReport.js';
import { logHeaderLines, runFrontEndCommand } from './frontEndSession.js';
import { COMMON_FLAG_ARITY, parsePlinkCommandLine, plinkInputOf, selectionArgsOf, type FlagArity, type PlinkFlags } from './plinkCommandLine.js';

/** Flags of a --fast-epistasis command line and their [least, most] parameters. */
const FLAG_ARITY: ReadonlyMap<string, FlagArity> = new Map([
  ...COMMON_FLAG_ARITY, ['--fast-epistasis', [0, 1]], ['--epi1', [1, 1]], ['--epi2', [1, 1]], ['--allow-no-sex', [0, 0]],
  ['--pheno', [1, 1]], ['--pheno-name', [1, 1]],
]);


function pValueFlag(flags: PlinkFlags, flag: string, fallback: number): number {
  const text = flags.get(flag)?.[0];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !(value > 0 && value <= 1)) throw new UserError(`plink: ${flag} must be a p-value in (0, 1], got "${text}"`);
  return value;
}

/** The phenotype file prepare reads: PLINK's classes with unknown-sex samples missing unless --allow-no-sex. */
async function writePhenotypes(flags: PlinkFlags, input: { flag: string; path: string }, path: string): Promise<void> {
  const source = await openGenotypeInput(input.path, { onBadSite: 'error' });
  if (source === null) throw new UserError(`plink: ${input.path} is neither a PLINK fileset nor a VCF`);
  const pheno = flags.get('--pheno')?.[0] ?? null;
  const phenoName = flags.get('--pheno-name')?.[0] ?? null;
  const plinkPaths = input.flag === '--bfile' ? plinkPathsOf(input.path) : null;
  if (pheno === null && plinkPaths === null) throw new UserError('plink: a VCF has no phenotypes; give them with --pheno FILE');
  const classes = pheno !== null
    ? await readPhenotypeFile(pheno, source.samples, phenoName)
    : await readFamPhenotypes((plinkPaths as { fam: string }).fam, source.samples);
  const knownSex = new Uint8Array(source.samples.length);
  if (plinkPaths !== null) {
    let sampleIdx = 0;
    for await (const { text } of readTextLines(plinkPaths.fam)) {
      const columns = text.trim().split(/\s+/);
      if (columns.length >= 5) knownSex[sampleIdx++] = columns[4] === '1' || columns[4] === '2' ? 1 : 0;
    }
  }
  const allowNoSex = flags.has('--allow-no-sex');
  const value = (cls: number, sampleIdx: number): string =>
    cls === CLASS_MISSING || (!allowNoSex && knownSex[sampleIdx] === 0) ? '-9' : cls === CLASS_CONTROL ? '1' : cls === CLASS_CASE ? '2' : '-9';
  writeFileSync(path, source.samples.map((sample, s) => `${sample.fid ?? sample.iid} ${sample.iid} ${value(classes.classes[s], s)}\n`).join(''));
}

/** Runs a --fast-epistasis command line (the caller saw the flag). */
export async function runFastEpistasis(args: readonly string[]): Promise<void> {
  const flags = parsePlinkCommandLine(args, FLAG_ARITY, ' with --fast-epistasis');
  const modifier = flags.get('--fast-epistasis')?.[0];
  if (modifier !== undefined && modifier !== 'boost') throw new UserError(`plink: --fast-epistasis modifier '${modifier}' is not supported (supported: boost)`);
  const input = plinkInputOf(flags);
  const settings = { boost: modifier === 'boost', epi1: pValueFlag(flags, '--epi1', 0.0001), epi2: pValueFlag(flags, '--epi2', 0.01) };
  const out = flags.get('--out')?.[0] ?? 'plink';
  const paths = { pairs: `${out}.epi.cc`, summary: `${out}.epi.cc.summary`, log: `${out}.log` };
  await runFrontEndCommand({ out, paths: Object.values(paths), force: flags.has('--force') }, async (session) => {
    const { scratch, staged, run } = session;
    const phenoPath = join(scratch, 'pheno.txt');
    await writePhenotypes(flags, input, phenoPath);
    const packedPath = join(scratch, 'input.packed');
    await run(['prepare', input.flag, input.path, ...selectionArgsOf(flags), '--pheno', phenoPath, '--out', packedPath, '--json']);
    const sidecar = readSidecar(`${packedPath}.json`);
    const caseControl = sidecar.caseControl!;
    if (caseControl.numControls < 2 || caseControl.numCases < 2) throw new UserError('plink: --fast-epistasis requires at least two cases and two controls');
    const report = fastEpistasisReport(packedPath, sidecar, settings);
    const analysis = `--fast-epistasis${settings.boost ? ' boost' : ''}`;
    const log = [
      ...logHeaderLines('PLINK 1.9 front end', [...flags].map(([flag, p]) => [flag, ...p].join(' ')), session),
      `${sidecar.numVector} variants and ${sidecar.numField} people pass filters and QC (${caseControl.numCases} cases, ${caseControl.numControls} controls).`,
      ...(report.numSkippedSnps > 0 ? [`--fast-epistasis: Skipping ${report.numSkippedSnps} monomorphic/non-autosomal site${report.numSkippedSnps === 1 ? '' : 's'}.`] : []),
      `${analysis} to ${paths.pairs} ... done.`,
      `${report.numValidTests} valid tests performed, summary written to ${paths.summary} .`, '', `End time: ${new Date().toString()}`, '',
    ].join('\n');
    staged.push(stageFile(paths.pairs, report.pairsText), stageFile(paths.summary, report.summaryText), stageFile(paths.log, log));
    return log;
  });
}
