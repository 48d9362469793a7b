// `snptally plink <PLINK flags>`: PLINK 1.9's command line (a flag starts with `--`; its parameters are the tokens up
// to the next flag), the flags and `--r2` modifiers the front end supports, PLINK's conflicts between them, and
// everything else refused by name.
import { UserError } from '../../core/errors.js';
import type { MatrixFormat, MatrixShape } from '../../io/index.js';
import type { DprimeKind } from './twoLocusLd.js';
import {
  COMMON_FLAG_ARITY, firstParameter, parsePlinkCommandLine, plinkInputOf, resourceArgsOf, selectionArgsOf, type FlagArity,
} from './plinkCommandLine.js';

/** PLINK 1.9's windows of table mode when no flag sets them. */
export const PLINK_DEFAULT_WINDOW = { numVariants: '10', kb: '1000', r2: '0.2' } as const;


/** Every flag the front end takes: [least, most] parameters. */
const FLAG_ARITY: ReadonlyMap<string, FlagArity> = new Map([
  ...COMMON_FLAG_ARITY, ['--r2', [0, Infinity]], ['--ld-window', [1, 1]], ['--ld-window-kb', [1, 1]], ['--ld-window-r2', [1, 1]],
]);

/** `--r2` modifiers the front end supports. */
const R2_MODIFIERS = ['triangle', 'square', 'square0', 'bin', 'bin4', 'gz', 'inter-chr', 'd', 'dprime', 'dprime-signed'];

/** What a PLINK command line asks for. */
export interface PlinkRequest {
  readonly input: { readonly flag: '--bfile' | '--vcf'; readonly path: string };
  /** `--out` (PLINK's default: plink). */
  readonly out: string;
  /** snptally flags for prepare's selection, e.g. ['--chr', '1,2', '--maf']. */
  readonly selectionArgs: readonly string[];
  /** snptally flags of the run's resources: --threads, --memory. */
  readonly resourceArgs: readonly string[];
  /** A dense matrix (`--r2 square|square0|triangle`, or `bin`/`bin4` alone: square), or null for the table. */
  readonly matrix: { readonly shape: MatrixShape; readonly format: MatrixFormat } | null;
  readonly gz: boolean;
  readonly interChr: boolean;
  readonly dprime: DprimeKind | null;
  /** Table mode's windows (PLINK's defaults unless given) as the flags' text. */
  readonly window: { readonly numVariants: string; readonly kb: string; readonly r2: string };
  /** The smallest |r²| a table keeps (`--ld-window-r2`). */
  readonly minR2: number;
  readonly force: boolean;
  /** Whether the front end keeps only founders for LD itself (no --filter-founders given): PLINK still counts everyone. */
  readonly foundersForLdOnly: boolean;
  /** The flags as PLINK's log lists them ("Options in effect"). */
  readonly optionsInEffect: readonly string[];
}

/**
 * Parses PLINK flags into a request.
 * @throws UserError naming the first unsupported flag or modifier, a wrong number of parameters, or PLINK's conflicts.
 */
export function parsePlinkFlags(args: readonly string[]): PlinkRequest {
  const flags = parsePlinkCommandLine(args, FLAG_ARITY);
  const one = (flag: string): string | undefined => firstParameter(flags, flag);
  const input = plinkInputOf(flags);
  const modifiers = flags.get('--r2');
  if (modifiers === undefined) throw new UserError('plink: give --r2 (the PLINK analysis the front end runs)');
  for (const modifier of modifiers) {
    if (!R2_MODIFIERS.includes(modifier)) {
      throw new UserError(`plink: --r2 modifier '${modifier}' is not supported (supported: ${R2_MODIFIERS.join(' ')})`);
    }
  }
  const has = (modifier: string): boolean => modifiers.includes(modifier);
  const shapes = (['triangle', 'square', 'square0'] as const).filter(has);
  const formats = (['bin', 'bin4'] as const).filter(has);
  const dprimes = (['d', 'dprime', 'dprime-signed'] as const).filter(has);
  if (shapes.length > 1 || formats.length > 1 || dprimes.length > 1 || (formats.length > 0 && has('gz'))) {
    throw new UserError('plink: conflicting --r2 modifiers');
  }
  const isMatrix = shapes.length > 0 || formats.length > 0;
  if (isMatrix && dprimes.length > 0) throw new UserError(`plink: --r2 '${dprimes[0]}' cannot be used with matrix output`);
  if (isMatrix && has('inter-chr')) throw new UserError("plink: --r2 'inter-chr' cannot be used with matrix output");
  for (const flag of ['--ld-window', '--ld-window-kb']) {
    if (flags.has(flag) && (isMatrix || has('inter-chr'))) {
      throw new UserError(`plink: ${flag} cannot be used with the --r2 'inter-chr' or matrix output modifiers`);
    }
  }
  if (flags.has('--ld-window-r2') && isMatrix) throw new UserError('plink: --ld-window-r2 cannot be used with the --r2 matrix output modifiers');
  const window = {
    numVariants: one('--ld-window') ?? PLINK_DEFAULT_WINDOW.numVariants,
    kb: one('--ld-window-kb') ?? PLINK_DEFAULT_WINDOW.kb,
    r2: one('--ld-window-r2') ?? PLINK_DEFAULT_WINDOW.r2,
  };
  const minR2 = Number(window.r2);
  if (window.r2.trim() === '' || !(minR2 >= 0 && minR2 <= 1)) {
    throw new UserError(`plink: --ld-window-r2 must be a number in [0, 1], got "${window.r2}"`);
  }
  const selectionArgs = selectionArgsOf(flags);
  // plink1.9 computes LD over founders only, --nonfounders or not (checked: its .ld is the same); --nonfounders only
  // widens --maf to every sample, which founders-only prepared data cannot reproduce.
  if (flags.has('--nonfounders') && flags.has('--maf')) {
    throw new UserError('plink: --nonfounders with --maf is not supported with --r2 (LD is over founders, the frequencies would be over every sample)');
  }
  if (!flags.has('--filter-founders')) selectionArgs.push('--filter-founders');
  const resourceArgs = resourceArgsOf(flags);
  return {
    input,
    out: one('--out') ?? 'plink',
    selectionArgs,
    resourceArgs,
    matrix: isMatrix ? { shape: shapes[0] ?? 'square', format: formats[0] ?? 'text' } : null,
    gz: has('gz'),
    interChr: has('inter-chr'),
    dprime: dprimes[0] ?? null,
    window,
    minR2,
    force: flags.has('--force'),
    foundersForLdOnly: !flags.has('--filter-founders'),
    optionsInEffect: [...flags].map(([flag, parameters]) => [flag, ...parameters].join(' ')),
  };
}

/** The output files PLINK writes for `request`: the result and the log. */
export function plinkOutputPaths(request: PlinkRequest): { readonly result: string; readonly log: string } {
  const extension = request.matrix !== null && request.matrix.format !== 'text' ? '.ld.bin' : request.gz ? '.ld.gz' : '.ld';
  return { result: `${request.out}${extension}`, log: `${request.out}.log` };
}

/** The r² modifiers as PLINK's log line names the analysis, e.g. `--r2 square bin4` or `--r2 inter-chr dprime`. */
export function describeR2(request: PlinkRequest): string {
  const parts = ['--r2'];
  if (request.matrix !== null) parts.push(request.matrix.shape, ...(request.matrix.format === 'text' ? [] : [request.matrix.format]));
  if (request.gz) parts.push('gz');
  if (request.interChr) parts.push('inter-chr');
  if (request.dprime !== null) parts.push(request.dprime);
  return parts.join(' ');
}
