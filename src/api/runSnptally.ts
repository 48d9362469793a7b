// `run(options)`: one job of `snptally run` from JavaScript, with typed options and the engine's typed result.
//
// Options have the names and meanings of `run`'s command-line options and go through the same checks (cli/runOptions),
// so the two can never disagree; an error names the option as the command line spells it (`--vectors must be …`).
import { availableParallelism } from 'node:os';
import { UserError } from '../core/errors.js';
import { SELECT_ALL } from '../io/index.js';
import {
  buildRunPlan, checkMissingCallsAllowed, loadRunJob, parseBadSitePolicy, resolveRunInput, runCompanions, skipsMissingCalls,
  type RunInput, type RunOptionText, type RunResult,
} from '../cli/index.js';

/** A job of `snptally run`; every option may be left out (README "`run` options" gives the defaults). */
export interface RunOptions {
  /** `ccc` (default), `duo` (SPEC §3) or `r2` (LD r², 2-way). */
  readonly metric?: string;
  /** Pairs (2, default) or triples (3). */
  readonly way?: 2 | 3;
  /** A synthetic problem (SPEC §4; default `random`), when there is no `input`. */
  readonly problem?: 'random' | 'analytic';
  /** A prepared file, PLINK fileset (prefix or .bed), VCF, or raw packed file (SPEC §1; needs `vectors` and `fields`). */
  readonly input?: string;
  /** Bad VCF sites of `input`: `error` (default) or `skip`. */
  readonly onBadSite?: 'skip' | 'error';
  /** Problem size: 2048 × 4096 for synthetic problems; an input's own sizes otherwise. */
  readonly vectors?: number;
  readonly fields?: number;
  /** Code `10` means missing (ccc, duo; r² always skips missing calls). */
  readonly sparse?: boolean;
  /** Keep entries whose float32 value is > this; CoMet's per-entry forms as 4 (2-way) or 5 (3-way) values. */
  readonly threshold?: number | readonly number[];
  /** The `p` (default 2/3) and `mult` (4.5 for ccc, 4 for duo) of SPEC §3. */
  readonly cccParam?: number;
  readonly multiplier?: number;
  /** Output values as float32 (the checksum always uses doubles). */
  readonly singlePrecision?: boolean;
  /** The float type of czekanowski's real values and sums (SPEC §8; default double). */
  readonly precision?: 'double' | 'single';
  /** Vector blocks, field slabs and replicas (SPEC §6): in-process ranks. */
  readonly npv?: number;
  readonly npf?: number;
  readonly npr?: number;
  /** `cpu` (default), `ref`, `webgpu`, or `auto` (webgpu on a hardware GPU, else cpu). */
  readonly backend?: 'cpu' | 'ref' | 'webgpu' | 'auto';
  /** Kernel threads of the whole job (default: the machine's cores). */
  readonly threads?: number;
  /** Write `<out>_<rank>.bin` (SPEC §7) and `<out>.run.json`. */
  readonly out?: string;
  /** Write SPEC §9's histograms of all values to this file. */
  readonly histograms?: string;
  /** Keep only the records of the `top` strongest entries, in `<out>_top.bin`. */
  readonly top?: number;
  /** Overwrite existing output files. */
  readonly force?: boolean;
  /** Check every value of the analytic problem against its expectation. */
  readonly verify?: boolean;
  /** Called with the comparisons (tuples × fields) done so far and in total, a few times a second. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** The JavaScript type of every option (`threshold`: a number or an array of numbers), checked for untyped callers. */
const OPTION_TYPES: { readonly [name in keyof RunOptions]-?: 'string' | 'number' | 'boolean' | 'function' | 'threshold' } = {
  metric: 'string', way: 'number', problem: 'string', input: 'string', onBadSite: 'string', vectors: 'number', fields: 'number',
  sparse: 'boolean', threshold: 'threshold', cccParam: 'number', multiplier: 'number', singlePrecision: 'boolean', precision: 'string',
  npv: 'number', npf: 'number', npr: 'number', backend: 'string', threads: 'number', out: 'string', histograms: 'string',
  top: 'number', force: 'boolean', verify: 'boolean', onProgress: 'function',
};

/**
 * Runs one job in this process (ranks as worker threads) and resolves to its result: `checksum` (SPEC §5), `entries`,
 * `comparisons`, timings, `rankDevices` (where and with which kernel set each rank ran), `outputFiles`, ….
 * @throws UserError for a bad option or input, with the one-line message `snptally run` would print.
 */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const text = optionText(options);
  const runJob = await loadRunJob();
  const hooks = { onProgress: options.onProgress };
  if (text.input === undefined) {
    const plan = buildRunPlan(text, availableParallelism(), null);
    return runJob(plan.spec, { ...hooks, companions: runCompanions(plan.spec, plan.threshold, null) });
  }
  // Options are checked before a PLINK/VCF input is converted, and again with the sizes the input records.
  buildRunPlan({ ...text, vectors: undefined, fields: undefined }, availableParallelism(), { numVector: 1, numField: 1 });
  const input: RunInput = await resolveRunInput(text.input, {
    onBadSite: parseBadSitePolicy(text.onBadSite), allowConversion: true, selection: SELECT_ALL, removeOnInterrupt: false,
  });
  try {
    checkMissingCallsAllowed(input, skipsMissingCalls(text));
    const plan = buildRunPlan({ ...text, input: input.packedPath }, availableParallelism(), input.size);
    return await runJob(plan.spec, { ...hooks, companions: runCompanions(plan.spec, plan.threshold, input) });
  } finally {
    input.dispose();
  }
}

/** The options as `run`'s command line would have given them (cli/runOptions parses and checks them). */
function optionText(options: RunOptions): RunOptionText {
  if (typeof options !== 'object' || options === null) throw new UserError('run(): options must be an object');
  const types: Readonly<Record<string, string>> = OPTION_TYPES;
  for (const [name, value] of Object.entries(options)) {
    const type = types[name];
    if (type === undefined) throw new UserError(`run(): unknown option "${name}" (options: ${Object.keys(types).join(', ')})`);
    const typed = type === 'threshold'
      ? typeof value === 'number' || (Array.isArray(value) && value.every((item) => typeof item === 'number'))
      : typeof value === type;
    if (value !== undefined && !typed) {
      const expected = type === 'threshold' ? 'a number or an array of numbers' : `a ${type}`;
      throw new UserError(`run(): ${name} must be ${expected}, got ${JSON.stringify(value) ?? typeof value}`);
    }
  }
  const number = (value: number | undefined): string | undefined => (value === undefined ? undefined : String(value));
  const { threshold, multiplier } = options;
  const metric = options.metric ?? 'ccc';
  return {
    metric,
    way: number(options.way),
    problem: options.problem,
    input: options.input,
    onBadSite: options.onBadSite,
    vectors: number(options.vectors),
    fields: number(options.fields),
    sparse: options.sparse === true,
    threshold: threshold === undefined ? undefined : Array.isArray(threshold) ? threshold.map(String).join(',') : String(threshold),
    cccParam: number(options.cccParam),
    // One `multiplier`: the command line's --ccc-multiplier or --duo-multiplier by metric (r² refuses either).
    cccMultiplier: metric === 'duo' ? undefined : number(multiplier),
    duoMultiplier: metric === 'duo' ? number(multiplier) : undefined,
    singlePrecision: options.singlePrecision === true,
    precision: options.precision,
    npv: number(options.npv),
    npf: number(options.npf),
    npr: number(options.npr),
    backend: options.backend,
    threads: number(options.threads),
    output: options.out,
    histograms: options.histograms,
    top: number(options.top),
    force: options.force === true,
    verify: options.verify === true,
  };
}
