// Turns the text of `snptally run`'s options into a validated JobSpec (pure: no I/O, no engine).
import type { RealPrecision } from '../core/realProblems.js';
import { ANALYSIS_NAMES } from '../analyses/index.js';
import { UserError } from '../core/errors.js';
import { DEFAULT_PARAM, defaultMultiplier, type MetricKind, type NumWay, type ProblemSize } from '../core/types.js';
import { HALF_DIAGONAL_PLANS, type HalfDiagonalPlan } from '../parallel/index.js';
import type { JobSpec, MatrixOutputSpec } from './engineApi.js';
import { MATRIX_FORMATS, MATRIX_SHAPES } from '../io/index.js';
import {
  parseNonNegativeInteger, parseNonNegativeNumber, parsePositiveInteger,
} from './numberOptions.js';
import type { Threshold } from '../core/thresholds.js';
import { parseThresholdOption } from './thresholdOption.js';
import { parseWindowOptions, windowJobOf, type WindowOptionText } from './windowOptions.js';
import type { PreparedSidecar } from '../io/index.js';

/** Size of the default synthetic problem: a few seconds on two cores, big enough to show the rate. */
export const DEFAULT_NUM_VECTOR = 2048;
export const DEFAULT_NUM_FIELD = 4096;

/**
 * Largest vector count: output coordinates are uint32 `2·G + E` (SPEC §7), so G must stay below 2^31.
 */
export const MAX_NUM_VECTOR = 2 ** 31;

/** `--memory` and `--device-memory` are in MiB. */
const MIB = 2 ** 20;

/** Option values of `run` as the command line gave them (camelCase names of the long options). */
export interface RunOptionText extends WindowOptionText {
  readonly metric?: string;
  readonly way?: string;
  readonly problem?: string;
  readonly input?: string;
  readonly vectors?: string;
  readonly fields?: string;
  readonly sparse?: boolean;
  readonly threshold?: string;
  readonly cccParam?: string;
  readonly cccMultiplier?: string;
  readonly duoMultiplier?: string;
  readonly singlePrecision?: boolean;
  /** The float type of real-valued metrics (czekanowski): double or single. */
  readonly precision?: string;
  readonly npv?: string;
  readonly npf?: string;
  readonly npr?: string;
  readonly ranks?: string;
  readonly phases?: string;
  readonly phaseMin?: string;
  readonly phaseMax?: string;
  readonly stages?: string;
  readonly stageMin?: string;
  readonly stageMax?: string;
  readonly halfDiagonal?: string;
  readonly backend?: string;
  readonly finalize?: string;
  readonly threads?: string;
  readonly output?: string;
  readonly histograms?: string;
  readonly top?: string;
  readonly force?: boolean;
  readonly verify?: boolean;
  readonly json?: boolean;
  readonly onBadSite?: string;
  readonly memory?: string;
  readonly deviceMemory?: string;
  readonly matrix?: string;
  readonly matrixFormat?: string;
}

/** A validated run: the engine's job plus what only the CLI needs. */
export interface RunPlan {
  readonly spec: JobSpec;
  readonly threshold: Threshold;
  readonly json: boolean;
}

/**
 * Validates every option and builds the job.
 * @param defaultNumThreads kernel threads when `--threads` is absent (the machine's cores).
 * @param inputSize sizes recorded with the `--input` file (a prepared file's sidecar), if any.
 * @param windowInput the input's sidecar and the name to show, for an LD window's chromosomes and positions; null:
 *   the input has none (a window is refused).
 * @throws UserError with a one-line message for the first invalid option.
 */
export function buildRunPlan(
  options: RunOptionText, defaultNumThreads: number, inputSize: ProblemSize | null = null,
  windowInput: { readonly path: string; readonly sidecar: PreparedSidecar | null } | null = null,
): RunPlan {
  const metric = parseChoice('--metric', options.metric ?? 'ccc', ANALYSIS_NAMES);
  const numWay: NumWay = parseChoice('--way', options.way ?? '2', ['2', '3'] as const) === '2' ? 2 : 3;
  const backend = parseChoice('--backend', options.backend ?? 'cpu', ['cpu', 'ref', 'webgpu', 'auto'] as const);
  const finalize = parseChoice('--finalize', options.finalize ?? 'auto', ['auto', 'host'] as const);
  const source = problemSource(options, inputSize !== null);

  const numVector = sizeOption('--vectors', options.vectors, inputSize?.numVector, DEFAULT_NUM_VECTOR);
  if (numVector > MAX_NUM_VECTOR) throw new UserError(`--vectors must be at most ${MAX_NUM_VECTOR}, got ${numVector}`);
  const numField = sizeOption('--fields', options.fields, inputSize?.numField, DEFAULT_NUM_FIELD);

  const decomposition = decompositionOf(options, numWay);
  const windowOptions = parseWindowOptions(options, { metric, numWay });
  const threshold = windowOptions.r2Threshold ?? parseThresholdOption(options.threshold, numWay);
  if (metric === 'r2' && threshold.kind === 'multi2') {
    throw new UserError('--threshold with per-entry values applies to ccc and duo tables; r² has one entry per pair: give one value');
  }

  if (options.verify === true && source.kind !== 'analytic') {
    throw new UserError('--verify checks values against their analytic expectation: it needs --problem analytic');
  }
  const numThreads = options.threads === undefined ? defaultNumThreads : parsePositiveInteger('--threads', options.threads);

  const spec: JobSpec = {
    metricSpec: {
      metric,
      numWay,
      sparse: skipsMissingCalls(options),
      param: paramOf(options, metric),
      multiplier: multiplierOf(options, metric),
      precision: precisionOf(options, metric),
    },
    numVector,
    numField,
    source,
    decomposition,
    threshold,
    outputStub: options.output === undefined ? null : nonEmpty('--out', options.output),
    histogramPath: options.histograms === undefined ? null : nonEmpty('--histograms', options.histograms),
    top: options.top === undefined ? null : parsePositiveInteger('--top', options.top),
    force: options.force === true,
    singlePrecisionOutput: options.singlePrecision === true,
    backend,
    finalize,
    numThreads,
    verify: options.verify === true,
    matrix: matrixOutputOf(options),
    memoryLimits: {
      hostBytes: options.memory === undefined ? null : parsePositiveInteger('--memory', options.memory) * MIB,
      deviceBytes: options.deviceMemory === undefined ? null : parsePositiveInteger('--device-memory', options.deviceMemory) * MIB,
    },
    window: windowJobOf(windowOptions, windowInput),
  };
  return { spec, threshold, json: options.json === true };
}

/**
 * Whether code `10` is a missing call: with --sparse, and always for r² and KING, which like PLINK's --r2 and plink2's
 * --make-king (and the distances, as PLINK 1.9's --distance) are taken over the fields both vectors have called. CCC and DUO keep the explicit choice (SPEC §3 defines both modes).
 */
export function skipsMissingCalls(options: Pick<RunOptionText, 'sparse' | 'metric'>): boolean {
  return options.sparse === true || ['r2', 'king', 'distance', 'sqdist'].includes(options.metric ?? '');
}

/** `--matrix SHAPE [--matrix-format F]`: a dense matrix instead of records (the engine checks the rest). */
function matrixOutputOf(options: RunOptionText): MatrixOutputSpec | null {
  if (options.matrix === undefined) {
    if (options.matrixFormat !== undefined) throw new UserError('--matrix-format applies to --matrix only');
    return null;
  }
  return {
    shape: parseChoice('--matrix', options.matrix, MATRIX_SHAPES),
    format: parseChoice('--matrix-format', options.matrixFormat ?? 'text', MATRIX_FORMATS),
  };
}

/** A size option; when the input file records the size, a given option must agree with it. */
function sizeOption(option: string, text: string | undefined, recorded: number | undefined, fallback: number): number {
  const given = text === undefined ? undefined : parsePositiveInteger(option, text);
  if (recorded !== undefined && given !== undefined && given !== recorded) {
    throw new UserError(`${option} ${given} does not match the input, which has ${recorded}`);
  }
  return recorded ?? given ?? fallback;
}

function problemSource(options: RunOptionText, inputHasSizes: boolean): JobSpec['source'] {
  if (options.input !== undefined) {
    if (options.problem !== undefined) throw new UserError('use either --problem or --input, not both');
    if (!inputHasSizes && (options.vectors === undefined || options.fields === undefined)) {
      throw new UserError(
        '--input needs --vectors and --fields: a raw packed file does not record its sizes ' +
        '(prepared files, PLINK filesets and VCFs do)');
    }
    return { kind: 'file', path: nonEmpty('--input', options.input) };
  }
  const kind = parseChoice('--problem', options.problem ?? 'random', ['random', 'analytic'] as const);
  return { kind };
}

function decompositionOf(options: RunOptionText, numWay: NumWay): JobSpec['decomposition'] {
  const numProcVector = optionalPositive('--npv', options.npv, 1);
  const numProcField = optionalPositive('--npf', options.npf, 1);
  const numProcRepl = optionalPositive('--npr', options.npr, 1);
  const gridRanks = numProcVector * numProcField * numProcRepl;
  if (options.ranks !== undefined) {
    const numRanks = parsePositiveInteger('--ranks', options.ranks);
    if (numRanks !== gridRanks) {
      throw new UserError(
        `--ranks ${numRanks} does not match --npv ${numProcVector} × --npf ${numProcField} × --npr ${numProcRepl} = ${gridRanks}`);
    }
  }

  const numPhase = optionalPositive('--phases', options.phases, 1);
  const [phaseMin, phaseMax] = sliceOf('phase', numPhase, options.phaseMin, options.phaseMax);
  const numStage = optionalPositive('--stages', options.stages, 1);
  if (numStage > 1 && numWay === 2) {
    throw new UserError('--stages applies to --way 3 only (2-way runs are split with --phases)');
  }
  const [stageMin, stageMax] = sliceOf('stage', numStage, options.stageMin, options.stageMax);
  const halfDiagonal = halfDiagonalOf(options.halfDiagonal, numWay);
  return { numProcVector, numProcField, numProcRepl, numPhase, phaseMin, phaseMax, numStage, stageMin, stageMax, halfDiagonal };
}

/** `--half-diagonal`: SPEC §6's `lower-rows` unless asked; a plan of the 2-way circulant, so refused for 3-way. */
function halfDiagonalOf(text: string | undefined, numWay: NumWay): HalfDiagonalPlan {
  if (text === undefined) return 'lower-rows';
  const plan = parseChoice('--half-diagonal', text, HALF_DIAGONAL_PLANS);
  if (numWay === 3) {
    throw new UserError('--half-diagonal applies to --way 2 only (the 3-way slab plan has no half diagonal)');
  }
  return plan;
}

/** `[min, max]` of `--<name>-min/--<name>-max`: defaults 0 and count − 1, and 0 ≤ min ≤ max < count. */
function sliceOf(name: string, count: number, minText: string | undefined, maxText: string | undefined): [number, number] {
  const min = minText === undefined ? 0 : parseNonNegativeInteger(`--${name}-min`, minText);
  const max = maxText === undefined ? count - 1 : parseNonNegativeInteger(`--${name}-max`, maxText);
  if (min >= count) throw new UserError(`--${name}-min ${min} must be less than --${name}s ${count}`);
  if (max >= count) throw new UserError(`--${name}-max ${max} must be less than --${name}s ${count}`);
  if (min > max) throw new UserError(`--${name}-min ${min} must not exceed --${name}-max ${max}`);
  return [min, max];
}

/** The p of SPEC §3; r² has none, so `--ccc-param` is refused there rather than ignored. */
function paramOf(options: RunOptionText, metric: MetricKind): number {
  if (options.cccParam === undefined) return DEFAULT_PARAM;
  if (metric === 'r2') throw new UserError('--ccc-param applies to --metric ccc and duo, not r2');
  return parseNonNegativeNumber('--ccc-param', options.cccParam);
}

function multiplierOf(options: RunOptionText, metric: MetricKind): number {
  if (metric === 'r2' && (options.cccMultiplier !== undefined || options.duoMultiplier !== undefined)) {
    throw new UserError('--metric r2 has no multiplier (--ccc-multiplier and --duo-multiplier do not apply)');
  }
  if (metric === 'ccc' && options.duoMultiplier !== undefined) {
    throw new UserError('--duo-multiplier applies to --metric duo only (use --ccc-multiplier)');
  }
  if (metric === 'duo' && options.cccMultiplier !== undefined) {
    throw new UserError('--ccc-multiplier applies to --metric ccc only (use --duo-multiplier)');
  }
  const text = metric === 'ccc' ? options.cccMultiplier : options.duoMultiplier;
  return text === undefined ? defaultMultiplier(metric) : parseNonNegativeNumber(`--${metric}-multiplier`, text);
}

function parseChoice<T extends string>(option: string, text: string, choices: readonly T[]): T {
  const found = choices.find((choice) => choice === text);
  if (found === undefined) throw new UserError(`${option} must be one of ${choices.join(', ')}, got "${text}"`);
  return found;
}

function optionalPositive(option: string, text: string | undefined, fallback: number): number {
  return text === undefined ? fallback : parsePositiveInteger(option, text);
}

function nonEmpty(option: string, text: string): string {
  if (text.length === 0) throw new UserError(`${option} must not be empty`);
  return text;
}

/** `--precision` of a real-valued metric (SPEC §8; default double); refused with the 2-bit metrics, which have none. */
function precisionOf(options: RunOptionText, metric: string): RealPrecision | undefined {
  if (options.precision === undefined) return undefined;
  if (metric !== 'czekanowski') throw new UserError(`--precision is the float type of czekanowski's real values; --metric ${metric} has none`);
  if (options.precision !== 'double' && options.precision !== 'single') throw new UserError(`--precision must be double or single, got '${options.precision}'`);
  return options.precision;
}
