// Turns the text of `snptally run`'s options into a validated JobSpec (pure: no I/O, no engine).
import { UserError } from '../core/errors.js';
import { DEFAULT_PARAM, defaultMultiplier, type MetricKind, type NumWay } from '../core/types.js';
import type { JobSpec } from './engineApi.js';
import {
  parseNonNegativeInteger, parseNonNegativeNumber, parsePositiveInteger,
} from './numberOptions.js';
import { parseThresholdOption, type ThresholdChoice } from './thresholdOption.js';

/** Size of the default synthetic problem: a few seconds on two cores, big enough to show the rate. */
export const DEFAULT_NUM_VECTOR = 2048;
export const DEFAULT_NUM_FIELD = 4096;

/**
 * Largest vector count: output coordinates are uint32 `2·G + E` (SPEC §7), so G must stay below 2^31.
 */
export const MAX_NUM_VECTOR = 2 ** 31;

/** Option values of `run` as the command line gave them (camelCase names of the long options). */
export interface RunOptionText {
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
  readonly backend?: string;
  readonly threads?: string;
  readonly output?: string;
  readonly force?: boolean;
  readonly verify?: boolean;
  readonly json?: boolean;
}

/** A validated run: the engine's job plus what only the CLI needs. */
export interface RunPlan {
  readonly spec: JobSpec;
  readonly threshold: ThresholdChoice;
  readonly json: boolean;
}

/**
 * Validates every option and builds the job.
 * @param defaultNumThreads kernel threads when `--threads` is absent (the machine's cores).
 * @throws UserError with a one-line message for the first invalid option.
 */
export function buildRunPlan(options: RunOptionText, defaultNumThreads: number): RunPlan {
  const metric = parseChoice('--metric', options.metric ?? 'ccc', ['ccc', 'duo'] as const);
  const numWay: NumWay = parseChoice('--way', options.way ?? '2', ['2', '3'] as const) === '2' ? 2 : 3;
  const backend = parseChoice('--backend', options.backend ?? 'cpu', ['cpu', 'ref', 'webgpu', 'auto'] as const);
  const source = problemSource(options);

  const numVector = options.vectors === undefined ? DEFAULT_NUM_VECTOR : parsePositiveInteger('--vectors', options.vectors);
  if (numVector > MAX_NUM_VECTOR) throw new UserError(`--vectors must be at most ${MAX_NUM_VECTOR}, got ${numVector}`);
  const numField = options.fields === undefined ? DEFAULT_NUM_FIELD : parsePositiveInteger('--fields', options.fields);

  const decomposition = decompositionOf(options, numWay);
  const threshold = parseThresholdOption(options.threshold, numWay);

  if (options.verify === true && source.kind !== 'analytic') {
    throw new UserError('--verify checks values against their analytic expectation: it needs --problem analytic');
  }
  const numThreads = options.threads === undefined ? defaultNumThreads : parsePositiveInteger('--threads', options.threads);

  const spec: JobSpec = {
    metricSpec: {
      metric,
      numWay,
      sparse: options.sparse === true,
      param: options.cccParam === undefined ? DEFAULT_PARAM : parseNonNegativeNumber('--ccc-param', options.cccParam),
      multiplier: multiplierOf(options, metric),
    },
    numVector,
    numField,
    source,
    decomposition,
    threshold: thresholdSpecOf(threshold),
    outputStub: options.output === undefined ? null : nonEmpty('--output', options.output),
    force: options.force === true,
    singlePrecisionOutput: options.singlePrecision === true,
    backend,
    numThreads,
    verify: options.verify === true,
  };
  return { spec, threshold, json: options.json === true };
}

function problemSource(options: RunOptionText): JobSpec['source'] {
  if (options.input !== undefined) {
    if (options.problem !== undefined) throw new UserError('use either --problem or --input, not both');
    if (options.vectors === undefined || options.fields === undefined) {
      throw new UserError('--input needs --vectors and --fields: the packed file does not record its sizes');
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
  return { numProcVector, numProcField, numProcRepl, numPhase, phaseMin, phaseMax, numStage, stageMin, stageMax };
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

function multiplierOf(options: RunOptionText, metric: MetricKind): number {
  if (metric === 'ccc' && options.duoMultiplier !== undefined) {
    throw new UserError('--duo-multiplier applies to --metric duo only (use --ccc-multiplier)');
  }
  if (metric === 'duo' && options.cccMultiplier !== undefined) {
    throw new UserError('--ccc-multiplier applies to --metric ccc only (use --duo-multiplier)');
  }
  const text = metric === 'ccc' ? options.cccMultiplier : options.duoMultiplier;
  return text === undefined ? defaultMultiplier(metric) : parseNonNegativeNumber(`--${metric}-multiplier`, text);
}

/**
 * The engine's threshold. The per-entry forms need a JobSpec extension the engine does not have yet, so
 * they are refused here rather than silently run as something else.
 */
function thresholdSpecOf(choice: ThresholdChoice): JobSpec['threshold'] {
  switch (choice.kind) {
    case 'none': return { value: null };
    case 'single': return { value: choice.value };
    case 'multi2':
    case 'multi3':
      throw new UserError('per-entry --threshold values are parsed but not yet supported by the engine; give one value');
  }
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
