// PLINK's command line as every front end (--r2, --make-king, --fast-epistasis) reads it: a flag starts with `--`
// and its parameters are the tokens up to the next flag. The input, output, resource and selection flags all of
// them take, with their meaning passed on to `snptally prepare` / `run`.
import { UserError } from '../../core/errors.js';

/** The [least, most] parameters of a flag. */
export type FlagArity = readonly [number, number];

/** The selection flags passed on to `prepare` as they are (same names, PLINK's meaning). */
const SELECTION_FLAG_ARITY: ReadonlyArray<readonly [string, FlagArity]> = [
  ['--chr', [1, Infinity]], ['--from-bp', [1, 1]], ['--to-bp', [1, 1]], ['--extract', [1, 1]], ['--exclude', [1, 1]],
  ['--keep', [1, 1]], ['--remove', [1, 1]], ['--filter-founders', [0, 0]], ['--nonfounders', [0, 0]],
  ['--maf', [0, 1]], ['--geno', [0, 1]],
];

/** Input, output, resources, selection and snptally's --force: the flags every front end takes. */
export const COMMON_FLAG_ARITY: ReadonlyArray<readonly [string, FlagArity]> = [
  ['--bfile', [0, 1]], ['--vcf', [1, 1]], ['--out', [1, 1]], ['--threads', [1, 1]], ['--memory', [1, 1]],
  ...SELECTION_FLAG_ARITY, ['--force', [0, 0]],
];

/** A command line's flags and their parameters. */
export type PlinkFlags = ReadonlyMap<string, readonly string[]>;

/**
 * Splits PLINK's argument list into flags and their parameters and checks each against `arity`.
 * @throws UserError naming a token that is not a flag, a flag given twice, a flag `arity` lacks (`context` says
 * with what, e.g. " with --make-king") or a wrong number of parameters.
 */
export function parsePlinkCommandLine(args: readonly string[], arity: ReadonlyMap<string, FlagArity>, context = ''): PlinkFlags {
  const flags = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const token of args) {
    if (token.startsWith('--') && token.length > 2) {
      if (flags.has(token)) throw new UserError(`plink: ${token} is given twice`);
      current = [];
      flags.set(token, current);
    } else if (current === null) {
      throw new UserError(`plink: "${token}" is not a flag (PLINK's flags start with --)`);
    } else {
      current.push(token);
    }
  }
  for (const [flag, parameters] of flags) {
    const range = arity.get(flag);
    if (range === undefined) throw new UserError(`plink: ${flag} is not supported${context} (supported: ${[...arity.keys()].join(' ')})`);
    if (parameters.length < range[0] || parameters.length > range[1]) {
      const wanted = range[0] === range[1] ? `${range[0]}` : range[1] === Infinity ? `at least ${range[0]}` : `${range[0]} to ${range[1]}`;
      throw new UserError(`plink: ${flag} takes ${wanted} parameter(s), got ${parameters.length}`);
    }
  }
  return flags;
}

/** The first parameter of `flag`, if given. */
export function firstParameter(flags: PlinkFlags, flag: string): string | undefined {
  return flags.get(flag)?.[0];
}

/** The input: `--bfile [PREFIX]` (PLINK's default prefix `plink`) or `--vcf FILE`. */
export function plinkInputOf(flags: PlinkFlags): { readonly flag: '--bfile' | '--vcf'; readonly path: string } {
  if (flags.has('--bfile') && flags.has('--vcf')) throw new UserError('plink: give --bfile or --vcf, not both');
  if (!flags.has('--bfile') && !flags.has('--vcf')) throw new UserError('plink: give the input with --bfile PREFIX or --vcf FILE');
  return flags.has('--vcf')
    ? { flag: '--vcf', path: firstParameter(flags, '--vcf') as string }
    : { flag: '--bfile', path: firstParameter(flags, '--bfile') ?? 'plink' };
}

/** snptally `prepare` flags for the selection flags given, e.g. ['--chr', '1,2', '--maf']. */
export function selectionArgsOf(flags: PlinkFlags): string[] {
  return SELECTION_FLAG_ARITY.flatMap(([flag]) => {
    const parameters = flags.get(flag);
    if (parameters === undefined) return [];
    return flag === '--chr' ? [flag, parameters.join(',')] : [flag, ...parameters];
  });
}

/** snptally flags of the run's resources: --threads, --memory. */
export function resourceArgsOf(flags: PlinkFlags): string[] {
  return (['--threads', '--memory'] as const).flatMap((flag) => (flags.has(flag) ? [flag, firstParameter(flags, flag) as string] : []));
}
