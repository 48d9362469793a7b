// `snptally plink <PLINK flags>`: runs a PLINK 1.9 `--r2` command line as snptally commands (prepare with PLINK's
// selection, then run --metric r2 with a dense matrix or all pairs; a same-chromosome window's table comes straight from
// the prepared file, ldTableReport.ts) and writes the files PLINK writes, under its names and in its formats: <out>.ld,
// <out>.ld.gz or <out>.ld.bin, and <out>.log.
import { createReadStream, renameSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { readSidecar, stageFile, TextOutput, type PreparedSidecar } from '../../io/index.js';
import type { LdWindowJob } from '../engineApi.js';
import { parseCount } from '../numberOptions.js';
import { parseWindowOptions, windowJobOf } from '../windowOptions.js';
import { readRunInfo } from '../runInfoFile.js';
import { logHeaderLines, runFrontEndCommand, type FrontEndSession } from './frontEndSession.js';
import { writeLdTable } from './ldTableReport.js';
import { runFastEpistasis } from './fastEpistasisCommand.js';
import { describeR2, parsePlinkFlags, plinkOutputPaths, type PlinkRequest } from './plinkFlags.js';
import { isKingCommandLine } from './kingFlags.js';
import { runKing } from './kingCommand.js';
import { isDistanceCommandLine } from './distanceFlags.js';
import { runDistance } from './distanceCommand.js';
import { isGrmCommandLine } from './grmFlags.js';
import { runGrm } from './grmCommand.js';

/** Adds the `plink` command to `program`. */
export function addPlinkCommand(program: Command): void {
  program.command('plink')
    .summary('run a PLINK command line (--r2, --make-king, --make-rel, --distance, --fast-epistasis): the same flags, PLINK\'s output files')
    .description(
      'runs a PLINK 1.9 command line by changing only the program name, and writes the files PLINK writes: ' +
      '<out>.ld (.ld.gz with gz, .ld.bin with bin/bin4) and <out>.log. Flags: --bfile [PREFIX] or --vcf FILE, ' +
      '--out PREFIX, --threads N, --memory MiB, --chr, --from-bp, --to-bp, --extract, --exclude, --keep, --remove, ' +
      '--maf [F], --geno [R], --r2 [triangle|square|square0] [bin|bin4|gz] [inter-chr] [d|dprime|dprime-signed], ' +
      '--ld-window N, --ld-window-kb KB, --ld-window-r2 R; or plink2\'s relatedness: --make-king [triangle|square|square0] ' +
      '[bin|bin4], --make-king-table [counts], --king-table-filter X, --king-cutoff X (<out>.king[.bin] and .king.id, ' +
      '<out>.kin0, <out>.king.cutoff.in.id/.out.id; snptally\'s --backend cpu|ref|webgpu|auto runs them there); PLINK 1.9\'s --distance [square|square0|triangle] [gz|bin|bin4] [ibs] ' +
      '[1-ibs] [allele-ct] [flat-missing] (<out>.dist, .mibs, .mdist and their .id); plink2\'s GRM: --make-rel [cov] [meanimpute] ' +
      '[square|square0|triangle] [bin|bin4] (<out>.rel[.bin] and .rel.id) or --make-grm-bin [cov] [meanimpute] [id-header] ' +
      '(<out>.grm.bin, .grm.N.bin, .grm.id); or PLINK 1.9\'s --fast-epistasis [boost] ' +
      'with --epi1/--epi2 (<out>.epi.cc and .epi.cc.summary); and snptally\'s --force (PLINK overwrites; snptally ' +
      'replaces existing outputs only with it). Any other flag or modifier is refused by name. The log lists the ' +
      'snptally commands it ran')
    .argument('[flags...]', 'PLINK flags')
    .allowUnknownOption()
    .helpOption('-h, --help', 'print help')
    .action(async (flags: string[]) => {
      if (flags.includes('--fast-epistasis')) await runFastEpistasis(flags);
      else await runPlink(flags);
    });
}

/** The run's flags for the request's mode (a matrix, or an inter-chr table's pairs); `stub` is where its files go. */
export function runArgsOf(request: PlinkRequest, packedPath: string, stub: string): string[] {
  const args = ['run', '--metric', 'r2', '--input', packedPath, ...request.resourceArgs];
  if (request.matrix !== null) return [...args, '--matrix', request.matrix.shape, '--matrix-format', request.matrix.format, '--out', stub];
  // A table that runs is an inter-chr one (a same-chromosome window's needs no run): all pairs. D′ mode filters on the
  // haplotype r², which the dosage r² does not bound: every pair is needed.
  const recordsMinR2 = request.dprime === null ? request.minR2 : 0;
  // The records keep float32(r²) > T; a T just below float32(minR2) keeps every pair whose r² ≥ minR2.
  if (recordsMinR2 <= 0) return [...args, '--out', stub];
  const below = new Float32Array([recordsMinR2]);
  const bits = new Uint32Array(below.buffer);
  bits[0] -= 1;
  return [...args, '--threshold', String(below[0]), '--out', stub];
}

async function runPlink(flags: readonly string[]): Promise<void> {
  if (isKingCommandLine(flags)) {
    await runKing(flags);
    return;
  }
  if (isDistanceCommandLine(flags)) {
    await runDistance(flags);
    return;
  }
  if (isGrmCommandLine(flags)) {
    await runGrm(flags);
    return;
  }
  const request = parsePlinkFlags(flags);
  const outputs = plinkOutputPaths(request);
  await runFrontEndCommand({ out: request.out, paths: [outputs.result, outputs.log], force: request.force }, async (session) => {
    const { scratch, staged, run } = session;
    const packedPath = join(scratch, 'input.packed');
    await run(['prepare', request.input.flag, request.input.path, ...request.selectionArgs, '--out', packedPath, '--json']);
    const sidecar = readSidecar(`${packedPath}.json`);
    const stub = join(scratch, 'ld');
    // A same-chromosome window's table needs no run: its pairs are the window's, each recomputed for the text anyway.
    const window = request.matrix === null && !request.interChr ? tableWindowOf(request, packedPath, sidecar) : null;
    if (window === null) await run([...runArgsOf(request, packedPath, stub), '--json']);
    // The result is written (or renamed) in place: the log, staged, is renamed after it.
    let numLines: number | null = null;
    if (request.matrix === null) {
      // A .ld.gz as gzip members compressed on the thread pool while the next lines are made (one valid gzip file).
      const output = await TextOutput.toFile(outputs.result, { force: true, gzipMembers: true });
      try {
        const pairs = window !== null ? { window } : { records: { recordFiles: readRunInfo(`${stub}.run.json`).outputPaths, scratchParent: scratch } };
        numLines = await writeLdTable({ sidecar, packedPath, pairs, threads: threadsOf(request) }, { dprime: request.dprime, minR2: request.minR2 }, output);
        await output.commit();
      } catch (error) {
        output.discard();
        throw error;
      }
    } else if (request.gz) {
      const output = await TextOutput.toFile(outputs.result, { force: true });
      try {
        for await (const chunk of createReadStream(`${stub}.ld`)) await output.write((chunk as Buffer).toString('latin1'));
        await output.commit();
      } catch (error) {
        output.discard();
        throw error;
      }
    } else {
      renameSync(`${stub}${request.matrix.format === 'text' ? '.ld' : '.ld.bin'}`, outputs.result);
    }
    // plink1.9 counts every sample it kept, founders or not, though LD is over the founders.
    const numNonfounders = request.foundersForLdOnly ? sidecar.selection?.samplesRemoved.filterFounders ?? 0 : 0;
    const log = plinkLog(request, {
      session, numVariants: sidecar.numVector, numSamples: sidecar.numField + numNonfounders, numFounders: sidecar.numField, numNonfounders, numLines,
      resultPath: outputs.result,
    });
    staged.push(stageFile(outputs.log, log));
    return log;
  });
}

/** The table's same-chromosome window over the prepared SNPs, checked as `run --ld-window*` checks it. */
function tableWindowOf(request: PlinkRequest, packedPath: string, sidecar: PreparedSidecar): PairWindowLimits {
  const options = parseWindowOptions({ ldWindow: request.window.numVariants, ldWindowKb: request.window.kb }, { metric: 'r2', numWay: 2 });
  return (windowJobOf(options, { path: packedPath, sidecar }) as LdWindowJob).limits;
}

/** `--threads N`, or the machine's cores. */
function threadsOf(request: PlinkRequest): number {
  const at = request.resourceArgs.indexOf('--threads');
  return at >= 0 ? parseCount('--threads', request.resourceArgs[at + 1], { least: 1, most: 1024 }) : availableParallelism();
}

/** What the log reports. */
interface LogFacts {
  readonly session: Pick<FrontEndSession, 'started' | 'commands'>;
  readonly numVariants: number;
  readonly numSamples: number;
  readonly numFounders: number;
  readonly numNonfounders: number;
  readonly numLines: number | null;
  readonly resultPath: string;
}

/** PLINK's log, in its shape: options in effect, what was kept, what was written; plus the snptally commands run. */
function plinkLog(request: PlinkRequest, facts: LogFacts): string {
  return [
    ...logHeaderLines('PLINK 1.9 front end', request.optionsInEffect, facts.session),
    `${facts.numFounders} founders and ${facts.numNonfounders} nonfounders present.`,
    `${facts.numVariants} variants and ${facts.numSamples} people pass filters and QC.`,
    `${describeR2(request)}${facts.numLines === null ? '' : ` (${facts.numLines} lines)`}... done.`,
    `Results written to ${facts.resultPath} .`,
    '',
    `End time: ${new Date().toString()}`,
    '',
  ].join('\n');
}
