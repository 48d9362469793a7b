// `snptally run`: validate the options into a JobSpec, run it with a progress display, print the result.
import { availableParallelism } from 'node:os';
import { Command, Option } from 'commander';
import { detectMpiLaunch, HALF_DIAGONAL_PLANS, type MpiLaunch } from '../parallel/index.js';
import { ANALYSIS_NAMES } from '../analyses/index.js';
import { UserError } from '../core/errors.js';
import { MAX_TOP_RECORDS } from '../core/limits.js';
import { genotypeInputKind, MATRIX_FORMATS, MATRIX_SHAPES, SAMPLE_ROWS_READY, startTransposeWorkersAhead, type ChunkWriterPoolStart } from '../io/index.js';
import { inMemoryInputBytes, loadRunJob, startRunKernelsAhead, type JobSpec, type MemoryReport, type StartedRunKernels } from './engineApi.js';
import {
  addInputAliasOptions, addSelectionOptions, genotypeInputOf, parseSelection, readSelectionOptionText, type SelectionOptionText,
} from './genotypeInputOptions.js';
import { parseBadSitePolicy } from './genotypePreparation.js';
import { cleanUpOnInterrupt } from './interruptCleanup.js';
import { runCompanions, runJsonOf } from './runCompanions.js';
import { checkMissingCallsAllowed, resolveRunInput, type RunInput, type RunInputOptions } from './runInput.js';
import { createProgressDisplay } from './progressBar.js';
import { describeMemory, formatRunSummary } from './runReport.js';
import { parseWindowOptions } from './windowOptions.js';
import type { PreparedSidecar } from '../io/index.js';
import { buildRunPlan, DEFAULT_NUM_FIELD, DEFAULT_NUM_VECTOR, skipsMissingCalls, type RunOptionText } from './runOptions.js';
import { writeCommandOutput } from './stdout.js';
import { traceMark } from '../core/trace.js';
import { markRunInputOpened } from './runMilestones.js';

/** Adds the `run` command to `program`. */
export function addRunCommand(program: Command): void {
  const command = program.command('run')
    .summary('compute all metrics of a problem and print their CoMet checksum')
    .description(
      'compute all 2-way or 3-way metrics of a problem and print their CoMet checksum ' +
      `(no options: a random 2-way CCC problem of ${DEFAULT_NUM_VECTOR} vectors × ${DEFAULT_NUM_FIELD} fields)`)
    .addOption(new Option('--metric <name>', 'similarity metric (r2: LD r², 2-way)').choices([...ANALYSIS_NAMES]).default('ccc'))
    .addOption(new Option('--way <n>', 'pairs (2) or triples (3)').choices(['2', '3']).default('2'))
    .addOption(new Option('--problem <kind>', 'synthetic problem of SPEC §4 (default: random)')
      .choices(['random', 'analytic']).conflicts('input'))
    .option('--input <file>',
      'prepared file (see prepare), PLINK fileset (x or x.bed), VCF, or raw packed file (needs --vectors and --fields)')
    .addOption(new Option('--on-bad-site <policy>', 'bad VCF sites of --input: skip them or stop')
      .choices(['skip', 'error']).default('error'))
    .option('--vectors <n>', `number of vectors (default: ${DEFAULT_NUM_VECTOR} for synthetic problems)`)
    .option('--fields <n>', `number of fields per vector (default: ${DEFAULT_NUM_FIELD} for synthetic problems)`)
    .option('--sparse', 'treat code 10 as missing (ccc, duo; r2 always does)', false)
    .option('--threshold <t>',
      'keep entries with float32 value > t (negative: keep all); per-entry forms: ' +
      'tLL,tLH,tHH,tLLHH (2-way) or tLLL,tLLH,tLHH,tHHH,tLLLHHH (3-way)')
    .option('--ccc-param <p>', 'the p of the metric formula (default: 2/3)')
    .option('--ccc-multiplier <m>', 'CCC multiplier (default: 4.5)')
    .option('--duo-multiplier <m>', 'DUO multiplier (default: 4)')
    .option('--single-precision', 'write output values as float32 (the checksum still uses doubles)', false)
    .addOption(new Option('--precision <type>', 'float type of czekanowski\'s real values and sums (default: double)').choices(['double', 'single']))
    .option('--npv <n>', 'vector blocks (ranks along vectors)', '1')
    .option('--npf <n>', 'field slabs (ranks along fields)', '1')
    .option('--npr <n>', 'replicas sharing a vector block', '1')
    .option('--ranks <n>', 'total ranks; must equal npv·npf·npr (default: that product)')
    .option('--phases <n>', 'number of phases the run is cut into', '1')
    .option('--phase-min <n>', 'first phase to compute (0-based)')
    .option('--phase-max <n>', 'last phase to compute (default: phases − 1)')
    .option('--stages <n>', 'number of stages (3-way only)', '1')
    .option('--stage-min <n>', 'first stage to compute (0-based)')
    .option('--stage-max <n>', 'last stage to compute (default: stages − 1)')
    .addOption(new Option('--half-diagonal <plan>',
      '2-way, even npv: who computes the d = npv/2 block diagonal. lower-rows (SPEC §6): rows i < npv/2 ' +
      'compute its blocks whole. split: each block is shared between its two rows, which balances the ranks\' ' +
      'work; every pair is still computed exactly once and the checksum is unchanged, but which rank writes ' +
      'which records differs from SPEC §6\'s literal plan. No effect for odd npv; not for --way 3 ' +
      '(default: lower-rows)')
      .choices([...HALF_DIAGONAL_PLANS]))
    .addOption(new Option('--backend <name>', 'kernel set').choices(['cpu', 'ref', 'webgpu', 'auto']).default('cpu'))
    .addOption(new Option('--finalize <where>', 'where metric values, thresholds and the checksum are computed (2-way and 3-way): auto (on the GPU with --backend webgpu when the run allows it) or host')
      .choices(['auto', 'host']).default('auto'))
    .option('--threads <n>', `kernel threads, and as many host-finalize threads, for the whole process (default: ${availableParallelism()})`)
    .option('--memory <MiB>',
      'refuse the run when its estimated peak host memory (all ranks of this process; under mpirun, all processes of a host) exceeds this (default: MemAvailable of /proc/meminfo, else the free memory)')
    .option('--device-memory <MiB>',
      'refuse a --backend webgpu run when its estimated peak GPU memory per rank exceeds this (default: no check; WebGPU adapters report no memory size)')
    .option('--out <stub>', 'write per-rank binary files <stub>_<rank>.bin (alias: --output)')
    .addOption(new Option('--output <stub>', 'the same as --out').hideHelp().conflicts('out'))
    .addOption(new Option('--matrix <shape>',
      'write every pair\'s value as one dense matrix <stub>.ld (r2), byte for byte as PLINK 1.9\'s --r2 <shape>: ' +
      'triangle (rows 0 … i), square, or square0 (upper triangle zero); needs --out, no --threshold')
      .choices([...MATRIX_SHAPES]))
    .addOption(new Option('--matrix-format <format>', 'text (tab-separated, PLINK\'s digits), bin (float64, <stub>.ld.bin) or bin4 (float32) (default: text)')
      .choices([...MATRIX_FORMATS]))
    .option('--histograms <file>',
      'write the histograms of all values, before any threshold, to this tab-separated file (SPEC §9: ccc, duo; ' +
      'r2: one column over [0, 1])')
    .option('--top <n>',
      'keep only the records of the n strongest entries of the whole run (after --threshold), exactly, strongest first, ' +
      `in one file <stub>_top.bin (ties: lower vector indices, then entry bits, first; n at most ${MAX_TOP_RECORDS}); needs --output`)
    .option('--ld-window-kb <kb>',
      'LD window (2-way): keep only pairs on one chromosome at most kb·1000 bp apart (PLINK 1.9\'s meaning; needs an ' +
      'input with positions; only tiles that touch the window are computed) (default: no window)')
    .option('--ld-window <n>',
      'LD window (2-way): keep only pairs i < j on one chromosome with j − i < n in file order (PLINK 1.9\'s meaning; ' +
      'n ≥ 2) (default: no window)')
    .option('--ld-window-r2 <r>', 'r2: keep pairs with float32 r² ≥ r, as PLINK 1.9 (0 keeps all); not with --threshold')
    .option('--inter-chr', 'with --ld-window or --ld-window-kb: pairs on two different chromosomes are in the window too', false)
    .option('--force', 'overwrite existing output files of the same stub (and the --histograms file)', false)
    .option('--verify', 'check every value of an analytic problem against its expectation', false)
    .option('--json', 'print one JSON object with the result and the job instead of text', false)
    .option('--individuals',
      'with a PLINK fileset or VCF --input: vectors are the samples and fields the SNPs (relatedness: KING), transposed in ' +
      'memory while the run starts (prepare --individuals writes the same as a file); with --out also writes ' +
      '<stub>.sample-missing.bin, each sample\'s missing calls', false)
    .option('--autosome', 'with a PLINK fileset or VCF --input: keep only variants on chromosomes 1–22 (PLINK\'s --autosome), after the selection', false);
  addSelectionOptions(addInputAliasOptions(command))
    .action(async (_options: unknown, action: Command) => {
      const values = action.opts();
      const layout: InputLayout = { vectors: values.individuals === true ? 'samples' : 'snps', autosomesOnly: values.autosome === true };
      await runAction(readRunOptionText(values), readSelectionOptionText(values), layout);
    });
}

/** `--individuals` and `--autosome`: how a fileset or VCF input becomes vectors. */
type InputLayout = Required<Pick<RunInputOptions, 'vectors' | 'autosomesOnly'>>;

async function runAction(options: RunOptionText, selectionText: SelectionOptionText, layout: InputLayout): Promise<void> {
  const debugFailRank = readDebugFailRank();
  const launch = detectMpiLaunch();
  // Rank files <stub>_<rank>.bin, run-info <stub>.run.json and <stub>.input.json.
  if (options.output !== undefined) cleanUpOnInterrupt({ outputPrefixes: [`${options.output}_`, `${options.output}.`] });
  // The histograms file's temporary name is `<file>.<pid>-<hex>.tmp`.
  if (options.histograms !== undefined) cleanUpOnInterrupt({ outputPrefixes: [`${options.histograms}.`] });
  // Options are checked once before the input is read (a bad option must not wait for a conversion),
  // then again with the sizes the input records.
  if (options.input === undefined) {
    if (Object.values(selectionText).some((value) => value !== undefined)) {
      throw new UserError('--chr, --extract, --keep, --maf and the other selection options need a PLINK fileset or VCF input');
    }
    if (layout.vectors === 'samples' || layout.autosomesOnly) throw new UserError('--individuals and --autosome need a PLINK fileset or VCF --input');
    await runPlanned(options, null, launch, { debugFailRank, startedKernels: null });
    return;
  }
  // The window's positions come with the input: here only its options are checked.
  const early = buildRunPlan({ ...options, vectors: undefined, fields: undefined, ldWindow: undefined, ldWindowKb: undefined }, availableParallelism(), { numVector: 1, numField: 1 });
  const window = parseWindowOptions(options, { metric: options.metric ?? 'ccc', numWay: options.way === '3' ? 3 : 2 });
  if (layout.vectors === 'samples' && (options.ldWindow !== undefined || options.ldWindowKb !== undefined)) {
    throw new UserError('--individuals: vectors are samples, and LD windows run along the genome (drop --ld-window / --ld-window-kb)');
  }
  // The transposition's workers start while the selection and the fileset's .bim and .fam are read (a GPU run that
  // transposes the records itself gives the transposition half the cores, decided once the input is open: not ahead).
  const transposeWorkers = layout.vectors === 'samples' && launch === null && early.spec.backend !== 'webgpu'
    ? startTransposeWorkersAhead(options.input) : null;
  try {
    await runInputAction({ ...options, input: options.input }, { selectionText, layout, launch, debugFailRank, early, window, transposeWorkers });
  } finally {
    // Nothing once the rows took them.
    await transposeWorkers?.cancel();
  }
}

/** What runAction worked out before the input is read. */
interface RunInputPlan {
  readonly selectionText: SelectionOptionText;
  readonly layout: InputLayout;
  readonly launch: MpiLaunch | null;
  readonly debugFailRank: number | undefined;
  readonly early: ReturnType<typeof buildRunPlan>;
  readonly window: ReturnType<typeof parseWindowOptions>;
  readonly transposeWorkers: ChunkWriterPoolStart | null;
}

/** A run over an --input: read (converted or transposed) while the kernel threads start, then planned and run. */
async function runInputAction(options: RunOptionText & { readonly input: string }, plan: RunInputPlan): Promise<void> {
  const { selectionText, layout, launch, debugFailRank, early, window, transposeWorkers } = plan;
  const selection = await parseSelection(selectionText);
  // Dawn's first adapter request blocks this thread (0.1–0.5 s) and takes twice as long beside the transpose workers
  // of an input read into memory: made first, the engine's own probe finds it done.
  if (options.backend === 'webgpu' && launch === null) await (await import('../mgemm/index.js')).probeWebgpu();
  // A fileset or VCF is converted (or transposed) first: the kernel threads start meanwhile where the run's kernel set is
  // known now (one in-process rank on the CPU kernels, no LD window: its bands take their own threads).
  const startsAhead = launch === null && window.spec === null && genotypeInputKind(options.input) !== null;
  const startedKernels = startsAhead ? await kernelsAheadOf(early.spec) : null;
  let input: RunInput;
  try {
    // In one process the prepared input's hash is checked beside the run (awaited before its files are committed).
    input = await resolveRunInput(options.input, {
      onBadSite: parseBadSitePolicy(options.onBadSite), allowConversion: launch === null, selection, hashInBackground: launch === null, ...layout,
      gpuTransposesRecords: layout.vectors === 'samples' && launch === null && await gpuTransposesRecords(early.spec),
      // A .bed whose SNPs fit is read into memory that the run reads in place: no temporary file written, hashed, read back.
      ...(launch === null && layout.vectors === 'snps' ? { inMemoryMaxBytes: await inMemoryInputBytes() } : {}),
      transposeWorkers,
    });
  } catch (error) {
    await startedKernels?.cancel();
    throw error;
  }
  traceMark('run input opened');
  markRunInputOpened();
  try {
    if (input.inMemory !== null && input.inMemory.rows.numSample < 2) {
      throw new UserError(`--individuals: ${input.givenPath} has ${input.inMemory.rows.numSample} sample${input.inMemory.rows.numSample === 1 ? "" : "s"} after the selection; pairs of samples need 2 or more`);
    }
    // Rows in memory are counted as they are written: a run that must refuse missing calls waits for them.
    if (input.inMemory !== null && !skipsMissingCalls(options)) await input.checked;
    checkMissingCallsAllowed(input, skipsMissingCalls(options));
    await runPlanned({ ...options, input: input.packedPath }, input, launch, { debugFailRank, startedKernels });
  } catch (error) {
    // A run over rows in memory that failed because their reader did reports the reader's error (it names the file);
    // otherwise the reader is stopped (its own error then is only that).
    if (input.inMemory !== null) {
      input.dispose();
      const readerError = await input.checked.then(() => null, (reason: unknown) => reason);
      if (readerError instanceof UserError) throw readerError;
    }
    throw error;
  } finally {
    input.dispose();
    // Nothing once the run took them.
    await startedKernels?.cancel();
  }
}

/**
 * Whether the run is one in-process GPU rank that finalizes on the device, so that it transposes a .bed's records itself
 * (rankRun.ts ownPlanesOnDevice decides for the run; this is its forecast from the plan, for how the rows in memory are
 * transposed).
 */
async function gpuTransposesRecords(spec: JobSpec): Promise<boolean> {
  const d = spec.decomposition;
  if (spec.backend !== 'webgpu' || d.numProcVector * d.numProcField * d.numProcRepl !== 1 || spec.finalize === 'host' || spec.metricSpec.numWay !== 2) {
    return false;
  }
  const { builtInFinalizesPairsOnDevice } = await import('../analyses/index.js');
  return builtInFinalizesPairsOnDevice(spec.metricSpec.metric, spec.metricSpec.sparse);
}

/**
 * The run's kernel threads started now (engine startRunKernels) for one in-process rank on the CPU kernels, else null;
 * a run whose kernel set turns out otherwise cancels them.
 */
async function kernelsAheadOf(spec: JobSpec): Promise<StartedRunKernels | null> {
  const d = spec.decomposition;
  if (spec.backend !== 'cpu' || d.numProcVector * d.numProcField * d.numProcRepl !== 1) return null;
  return startRunKernelsAhead({ backend: 'cpu', numThreads: spec.numThreads, analysis: { name: spec.metricSpec.metric, moduleUrl: spec.analysisModule ?? null } });
}

async function runPlanned(
  options: RunOptionText, input: RunInput | null, launch: MpiLaunch | null,
  hooks: { readonly debugFailRank: number | undefined; readonly startedKernels: StartedRunKernels | null },
): Promise<void> {
  const { debugFailRank, startedKernels } = hooks;
  if (launch !== null) {
    // Started by mpirun/srun: this process is one rank (loaded only then, with MPI).
    const { runUnderMpi } = await import('./mpiRun.js');
    await runUnderMpi(options, launch, {
      debugFailRank,
      inputSize: input?.size ?? null,
      windowInput: windowInputOf(input),
      companionsOf: (spec, threshold) => runCompanions(spec, threshold, input),
      onRootResult: (spec, result, threshold) => ({ runJson: runJsonOf(spec, result, threshold, input), shownSpec: shownSpecOf(spec, input) }),
    });
    return;
  }
  const plan = buildRunPlan(options, availableParallelism(), input?.size ?? null, windowInputOf(input));
  // The engine reads rows in memory where they are; people see the input they named.
  const spec = { ...plan.spec, source: engineSourceOf(input) ?? plan.spec.source };
  const shown = shownSpecOf(spec, input);
  // The engine checks the input file, the output stub and the decomposition before any work starts.
  const runJob = await loadRunJob();
  const progress = createProgressDisplay(process.stderr.isTTY === true && !plan.json);
  const header = progress.header;
  const onChecked = header === undefined ? undefined : (memory: MemoryReport) => header(describeMemory(memory));
  const companions = runCompanions(shown, plan.threshold, input);
  const result = await runJob(spec, { onProgress: progress.onProgress, debugFailRank, onChecked, companions, inputChecked: input?.checked, startedKernels })
    .finally(() => progress.stop());
  if (result.backendNote !== null) process.stderr.write(`snptally: ${result.backendNote}\n`);
  writeCommandOutput(plan.json ? `${JSON.stringify(runJsonOf(shown, result, plan.threshold, input))}\n`
    : formatRunSummary(shown, result, plan.threshold));
}

/** The engine's source where the input is in memory (rows transposed there, or packed vectors prepared there); else null. */
function engineSourceOf(input: RunInput | null): JobSpec['source'] | null {
  if (input?.inMemory != null) return input.inMemory.source;
  if (input?.packedInMemory == null) return null;
  const state = new Int32Array(new SharedArrayBuffer(4));
  state[0] = SAMPLE_ROWS_READY;
  return { kind: 'memory', packed: input.packedInMemory, state };
}

/** Where an LD window finds the input's loci: its sidecar, named by the file the user gave. */
function windowInputOf(input: RunInput | null): { readonly path: string; readonly sidecar: PreparedSidecar | null } | null {
  return input === null ? null : { path: input.givenPath, sidecar: input.sidecar };
}

/** The spec to show: people see the input they named, not the temporary file a PLINK/VCF input became. */
function shownSpecOf(spec: JobSpec, input: RunInput | null): JobSpec {
  return input === null ? spec : { ...spec, source: { kind: 'file', path: input.givenPath } };
}

/**
 * SNPTALLY_DEBUG_FAIL_RANK=N makes rank N fail on purpose once it has started (output opened, exchanges
 * begun), to test that a failing rank ends the whole run cleanly. Read here and nowhere else.
 */
function readDebugFailRank(): number | undefined {
  const text = process.env.SNPTALLY_DEBUG_FAIL_RANK;
  if (text === undefined || text === '') return undefined;
  if (!/^\d+$/.test(text)) throw new UserError(`SNPTALLY_DEBUG_FAIL_RANK must be a rank number, got "${text}"`);
  return Number(text);
}

/** Picks the typed option values out of commander's untyped record. */
function readRunOptionText(values: Record<string, unknown>): RunOptionText {
  const text = (name: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const flag = (name: string): boolean => values[name] === true;
  return {
    metric: text('metric'), way: text('way'), problem: text('problem'), input: genotypeInputOf(values),
    vectors: text('vectors'), fields: text('fields'), sparse: flag('sparse'), threshold: text('threshold'),
    cccParam: text('cccParam'), cccMultiplier: text('cccMultiplier'), duoMultiplier: text('duoMultiplier'),
    singlePrecision: flag('singlePrecision'), precision: text('precision'),
    npv: text('npv'), npf: text('npf'), npr: text('npr'), ranks: text('ranks'),
    phases: text('phases'), phaseMin: text('phaseMin'), phaseMax: text('phaseMax'),
    stages: text('stages'), stageMin: text('stageMin'), stageMax: text('stageMax'), halfDiagonal: text('halfDiagonal'),
    backend: text('backend'), finalize: text('finalize'), threads: text('threads'), output: text('out') ?? text('output'),
    histograms: text('histograms'), top: text('top'),
    force: flag('force'), verify: flag('verify'), json: flag('json'), onBadSite: text('onBadSite'),
    memory: text('memory'), deviceMemory: text('deviceMemory'), matrix: text('matrix'), matrixFormat: text('matrixFormat'),
    ldWindow: text('ldWindow'), ldWindowKb: text('ldWindowKb'), ldWindowR2: text('ldWindowR2'), interChr: flag('interChr'),
  };
}
