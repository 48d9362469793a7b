// `snptally epistasis`: the exact top-N pairs, triples or quadruples of SNPs by K2, MI or IG of their case-control genotype
// tables, over a PLINK fileset or VCF (samples ordered [controls | cases] by phenotype as they are read) or a file
// prepared with `prepare --case-control`; each result with its SNPs' names and positions and its table.
import { availableParallelism } from 'node:os';
import { Command, Option } from 'commander';
import { UserError } from '../../core/errors.js';
import { traceMark } from '../../core/trace.js';
import { EPISTASIS_SCORES, type EpistasisScore } from '../../core/types.js';
import { addInputAliasOptions, addSelectionOptions, caseControlOptionsOf, genotypeInputOf, parseSelection, readSelectionOptionText } from '../genotypeInputOptions.js';
import { parseBadSitePolicy } from '../genotypePreparation.js';
import { parsePositiveInteger } from '../numberOptions.js';
import { createProgressDisplay } from '../progressBar.js';
import { resolveRunInput } from '../runInput.js';
import { searchEpistasisAsRanks, tupleCount, type EpistasisSearchOptions, type EpistasisSearchResult } from './epistasisSearch.js';
import type { ThresholdRecordsOutput } from './thresholdRecords.js';
import { inProcessRanks, mpiRanks, type SearchRanks } from './searchRanks.js';
import { detectMpiLaunch } from '../../parallel/index.js';
import type { EpistasisOrder } from '../../analyses/epistasis/index.js';
import { formatEpistasisText, epistasisJson } from './epistasisReport.js';
import { writeCommandOutput } from '../stdout.js';
import { inMemoryInputBytes, startRunKernelsAhead, type StartedRunKernels } from '../engineApi.js';

/** Adds the `epistasis` command to `program`. */
export function addEpistasisCommand(program: Command): void {
  const command = program.command('epistasis')
    .summary('case-control epistasis: the exact top-N pairs, triples or quadruples of SNPs by K2, MI or IG')
    .description(
      'Score every pair (--order 2), triple (--order 3) or quadruple (--order 4) of SNPs by its 3^k × 2 table of genotypes in controls and cases ' +
      '(samples missing at any SNP of the tuple are left out of it) and print the N strongest, exactly: K2 (smaller is ' +
      'stronger), MI or IG in bits (larger); with --score-threshold X --out STUB, write every tuple past X instead (K2 ≤ X, ' +
      'MI or IG ≥ X) to STUB_<rank>.bin, read with `snptally dump`. Phenotypes: .fam column 6 or --pheno (1 control, 2 case, 0/-9/non-numeric missing).')
    .option('--input <file>', 'PLINK fileset, VCF, or a file prepared with `snptally prepare --case-control`')
    .addOption(new Option('--order <k>', 'pairs, triples or quadruples').choices(['2', '3', '4']).default('2'))
    .addOption(new Option('--score <score>', 'k2, mi or ig').choices(EPISTASIS_SCORES).default('k2'))
    .option('--top <n>', 'how many tuples to print', '10')
    .option('--score-threshold <x>', 'write every tuple whose score is past x (K2 ≤ x; MI, IG ≥ x) to --out files instead of printing the top N')
    .option('--out <stub>', 'with --score-threshold: <stub>_<rank>.bin records (SNP indices, float32 score) and <stub>.run.json')
    .option('--force', 'overwrite existing --out files', false)
    .option('--pheno <file>', "phenotypes in PLINK's --pheno format (FID IID values, header optional)")
    .option('--pheno-name <name>', 'the --pheno column to read (the file needs a FID IID header)')
    .addOption(new Option('--backend <backend>', 'kernel set').choices(['cpu', 'ref', 'webgpu', 'auto']).default('cpu'))
    .option('--threads <n>', 'kernel threads (default: the cores, shared among the MPI processes of a host)')
    .option('--npv <n>', 'vector blocks (ranks)', '1')
    .option('--npr <n>', 'replicas (ranks)', '1')
    .option('--phases <n>', 'phases', '1')
    .option('--stages <n>', 'stages (3- and 4-way)', '1')
    .addOption(new Option('--on-bad-site <policy>', 'malformed VCF sites').choices(['skip', 'error']).default('error'))
    .option('--json', 'print one JSON object', false);
  addSelectionOptions(addInputAliasOptions(command))
    .action(async (_options: unknown, action: Command) => {
      const options = action.opts();
      const launch = detectMpiLaunch();
      if (launch === null) {
        // The kernel threads start first, while the input is read and converted (one in-process rank): the engine's
        // modules load before the input is read (a dynamic import would wait for the reading's synchronous stretches).
        const kernels = startKernelsAhead(options);
        await kernels.catch(() => null);
        traceMark('kernel threads starting');
        let job: EpistasisCommandJob;
        try {
          job = await epistasisJobOf(options, { underMpi: false, processesOnHost: 1 });
          traceMark('input read');
        } catch (error) {
          await (await kernels.catch(() => null))?.cancel();
          throw error;
        }
        const startedKernels = await kernels.catch(async (error: unknown) => {
          job.dispose();
          throw error;
        });
        try {
          await runEpistasisJob({ ...job, search: { ...job.search, startedKernels } }, inProcessRanks());
        } finally {
          job.dispose();
          // Nothing once a run took them (a --score-threshold run starts its own).
          await startedKernels?.cancel();
        }
        return;
      }
      // Loaded only under an MPI launcher (the run's report and plan modules with it).
      const { asMpiRank } = await import('../mpiRun.js');
      await asMpiRank(launch, async (runtime) => {
        const job = await epistasisJobOf(options, { underMpi: true, processesOnHost: runtime.localSize });
        return { job, run: () => runEpistasisJob(job, mpiRanks(runtime.world, runtime)).finally(() => job.dispose()) };
      });
    });
}

/** A checked `epistasis` command line: what to search and how, its input and output. */
interface EpistasisCommandJob {
  readonly input: string;
  readonly search: EpistasisSearchOptions;
  readonly scoreThreshold: number | null;
  readonly records: ThresholdRecordsOutput | null;
  readonly json: boolean;
  dispose(): void;
}

/**
 * The command line's job, every check made before the engine starts (under MPI each process makes them alike, so
 * world rank 0 alone reports a problem). Under MPI the input must be prepared (one conversion, not one per process).
 */
async function epistasisJobOf(
  options: Record<string, unknown>, where: { readonly underMpi: boolean; readonly processesOnHost: number },
): Promise<EpistasisCommandJob> {
  const input = genotypeInputOf(options);
  if (input === undefined) throw new UserError('epistasis needs an input: --bfile, --vcf or --input');
  const order = Number(options.order) as EpistasisOrder;
  const score = String(options.score) as EpistasisScore;
  const top = parsePositiveInteger('--top', String(options.top));
  const count = (name: string): number => parsePositiveInteger(`--${name}`, String(options[name]));
  const numPhase = count('phases');
  const numStage = count('stages');
  if (order === 2 && numStage > 1) throw new UserError('--stages is for --order 3 and 4');
  const scoreThreshold = scoreThresholdOf(options.scoreThreshold as string | undefined, options.out as string | undefined);
  const numThreads = threadsOf(options, where.processesOnHost);
  const selection = await parseSelection(readSelectionOptionText(options));
  const runInput = await resolveRunInput(input, {
    onBadSite: parseBadSitePolicy(options.onBadSite as string | undefined), allowConversion: !where.underMpi, selection,
    caseControl: caseControlOptionsOf({ ...options, caseControl: true }), inMemoryMaxBytes: await inMemoryInputBytes(),
  });
  try {
    const sidecar = runInput.sidecar;
    if (sidecar === null || (sidecar.caseControl ?? null) === null) {
      throw new UserError(`--input ${input}: not prepared with --case-control (run \`snptally prepare ${input} --case-control --out FILE\`, or give the fileset)`);
    }
    if (runInput.kind === 'prepared' && (options.pheno !== undefined || options.phenoName !== undefined)) {
      throw new UserError(`--pheno: ${input} is prepared, its samples are ordered by the phenotypes it was prepared with`);
    }
    if (sidecar.numVector < order) throw new UserError(`${input}: ${sidecar.numVector} SNPs, --order ${order} needs at least ${order}`);
    const search: EpistasisSearchOptions = {
      packedPath: runInput.packedPath, packedInMemory: runInput.packedInMemory, sidecar, order, score, top, backend: options.backend as 'cpu', numThreads,
      decomposition: {
        numProcVector: count('npv'), numProcField: 1, numProcRepl: count('npr'), numPhase, phaseMin: 0, phaseMax: numPhase - 1,
        numStage, stageMin: 0, stageMax: numStage - 1, halfDiagonal: 'lower-rows',
      },
    };
    const records: ThresholdRecordsOutput | null = scoreThreshold === null ? null : {
      stub: String(options.out), scoreThreshold, force: options.force === true,
      input: { kind: runInput.kind, givenPath: runInput.givenPath, sidecarPath: runInput.sidecarPath },
    };
    // The records' modules (run.json, the input's sidecar) load only for --score-threshold.
    if (records !== null) (await import('./thresholdRecords.js')).checkThresholdOutputs(search, records);
    return { input, search, scoreThreshold, records, json: options.json === true, dispose: () => runInput.dispose() };
  } catch (error) {
    runInput.dispose();
    throw error;
  }
}

/** Runs the job as `ranks`; the reader prints the top N or the records' summary. */
async function runEpistasisJob(job: EpistasisCommandJob, ranks: SearchRanks): Promise<void> {
  const { input, search, records } = job;
  const { sidecar, order, score } = search;
  const progress = createProgressDisplay(ranks.isReader && process.stderr.isTTY === true && !job.json);
  const searchWithProgress = progress.onProgress === undefined ? search : { ...search, onProgress: progress.onProgress };
  const numTuples = tupleCount(sidecar.numVector, order);
  try {
    if (records !== null) {
      const { writeThresholdRecordsAsRanks } = await import('./thresholdRecords.js');
      const written = await writeThresholdRecordsAsRanks(searchWithProgress, records, ranks);
      if (written === null) return;
      const summary = {
        input, order, score, scoreThreshold: records.scoreThreshold, numSnps: sidecar.numVector, numTuples, records: written.numRecords,
        files: written.files, seconds: written.run.seconds, tupleSamplesPerSecond: written.run.comparisonsPerSecond,
      };
      writeCommandOutput(job.json ? `${JSON.stringify(summary)}\n`
        : `epistasis ${order}-way ${score} of ${input}: ${written.numRecords} of ${numTuples} tuples past ${records.scoreThreshold} ` +
          `in ${written.files.join(', ')} (${written.run.seconds.toFixed(2)} s)\n`);
      return;
    }
    const result: EpistasisSearchResult | null = await searchEpistasisAsRanks(searchWithProgress, ranks);
    if (result === null) return;
    const report = { input, order, score, sidecar, result, numTuples };
    writeCommandOutput(job.json ? `${JSON.stringify(epistasisJson(report))}\n` : formatEpistasisText(report));
  } finally {
    progress.stop();
  }
}

/** Kernel threads: `--threads`, or the host's cores shared among its processes. */
function threadsOf(options: Record<string, unknown>, processesOnHost: number): number {
  return options.threads === undefined
    ? Math.max(1, Math.floor(availableParallelism() / processesOnHost)) : parsePositiveInteger('--threads', String(options.threads));
}

/**
 * The run's kernel threads started now where the search runs as one in-process rank (else null); a bad --threads
 * rejects (reported once the command line's other checks have passed, where the engine reported it before).
 */
function startKernelsAhead(options: Record<string, unknown>): Promise<StartedRunKernels | null> {
  const oneRank = String(options.npv) === '1' && String(options.npr) === '1';
  if (!oneRank || options.backend !== 'cpu') return Promise.resolve(null);
  const starting = Promise.resolve().then(() => startRunKernelsAhead({
    backend: 'cpu', numThreads: threadsOf(options, 1), analysis: { name: 'epistasis', moduleUrl: null },
  }));
  starting.catch(() => undefined);
  return starting;
}

/** `--score-threshold` as a finite number (it needs `--out`), or null without it. */
function scoreThresholdOf(text: string | undefined, out: string | undefined): number | null {
  if (text === undefined) {
    if (out !== undefined) throw new UserError('--out is for --score-threshold records (the top N are printed)');
    return null;
  }
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UserError(`--score-threshold: "${text}" is not a number`);
  if (out === undefined) throw new UserError('--score-threshold needs --out STUB (the records go to STUB_<rank>.bin)');
  return value;
}
