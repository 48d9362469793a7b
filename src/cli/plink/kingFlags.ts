// `snptally plink` with plink2's relatedness flags: --make-king [modifiers], --make-king-table [counts],
// --king-table-filter X and --king-cutoff X, with the input, output, resource and selection flags of the front end,
// their modifiers, plink2's conflicts and ranges (plink2.cc's parser), and everything else refused by name.
import { UserError } from '../../core/errors.js';
import type { MatrixFormat, MatrixShape } from '../../io/index.js';

/** Flags that make a command line a KING one (the front end's other analyses take none of them). */
export const KING_FLAGS = ['--make-king', '--make-king-table', '--king-table-filter', '--king-cutoff'] as const;

/** The selection flags passed on to `prepare` as they are (same names, PLINK's meaning). */
export const SELECTION_FLAGS = ['--chr', '--from-bp', '--to-bp', '--extract', '--exclude', '--keep', '--remove', '--maf', '--geno'] as const;

/** Every flag of a KING command line: [least, most] parameters. */
const FLAG_ARITY: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['--bfile', [0, 1]], ['--vcf', [1, 1]], ['--out', [1, 1]], ['--threads', [1, 1]], ['--memory', [1, 1]],
  ['--chr', [1, Infinity]], ['--from-bp', [1, 1]], ['--to-bp', [1, 1]], ['--extract', [1, 1]], ['--exclude', [1, 1]],
  ['--keep', [1, 1]], ['--remove', [1, 1]], ['--maf', [0, 1]], ['--geno', [0, 1]], ['--force', [0, 0]],
  ['--make-king', [0, 2]], ['--make-king-table', [0, 1]], ['--king-table-filter', [1, 1]], ['--king-cutoff', [1, 1]],
]);

/** What a KING command line asks for. */
export interface KingRequest {
  readonly input: { readonly flag: '--bfile' | '--vcf'; readonly path: string };
  readonly out: string;
  /** snptally flags for prepare's selection, e.g. ['--chr', '1,2', '--maf']. */
  readonly selectionArgs: readonly string[];
  /** snptally flags of the runs' resources: --threads, --memory. */
  readonly resourceArgs: readonly string[];
  /** `--make-king`: the matrix's shape and format (plink2's defaults: triangle for text, square for bin/bin4), or null. */
  readonly matrix: { readonly shape: MatrixShape; readonly format: MatrixFormat } | null;
  /** `--make-king-table`: whether HETHET and IBS0 are counts (`counts`) rather than proportions of NSNP, or null. */
  readonly table: { readonly counts: boolean } | null;
  /** `--king-table-filter`: the table keeps pairs whose kinship is not below it; null: every pair. */
  readonly tableFilter: number | null;
  /** `--king-cutoff`: samples are removed until no pair's kinship is above it; null: none. */
  readonly cutoff: number | null;
  readonly force: boolean;
  /** The flags as PLINK's log lists them ("Options in effect"). */
  readonly optionsInEffect: readonly string[];
}

/** Whether PLINK's arguments ask for a KING analysis. */
export function isKingCommandLine(args: readonly string[]): boolean {
  return args.some((arg) => (KING_FLAGS as readonly string[]).includes(arg));
}

/** Splits PLINK's argument list into flags and their parameters. */
export function splitFlags(args: readonly string[]): Map<string, string[]> {
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
  return flags;
}

/** A number parameter of `flag` checked against plink2's range. */
function numberOf(flag: string, text: string, inRange: (value: number) => boolean): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !inRange(value)) throw new UserError(`plink: invalid ${flag} argument '${text}'`);
  return value;
}

/** `--make-king`'s modifiers: one shape, one encoding (bin, bin4; zs is refused: no Zstandard here). */
function matrixOf(modifiers: readonly string[]): KingRequest['matrix'] {
  const shapes = (['triangle', 'square', 'square0'] as const).filter((m) => modifiers.includes(m));
  const formats = (['bin', 'bin4'] as const).filter((m) => modifiers.includes(m));
  for (const modifier of modifiers) {
    if (!(['triangle', 'square', 'square0', 'bin', 'bin4'] as const).some((m) => m === modifier)) {
      throw new UserError(`plink: --make-king modifier '${modifier}' is not supported (supported: triangle square square0 bin bin4)`);
    }
  }
  if (shapes.length > 1) throw new UserError('plink: multiple --make-king shape modifiers');
  if (formats.length > 1) throw new UserError('plink: multiple --make-king encoding modifiers');
  // plink2's default shape: triangle for text, square for the binary encodings.
  return { shape: shapes[0] ?? (formats.length === 0 ? 'triangle' : 'square'), format: formats[0] ?? 'text' };
}

/**
 * Parses a KING command line.
 * @throws UserError naming the first unsupported flag or modifier, a wrong number of parameters, a value out of
 * plink2's range, or plink2's conflicts.
 */
export function parseKingFlags(args: readonly string[]): KingRequest {
  const flags = splitFlags(args);
  for (const [flag, parameters] of flags) {
    const arity = FLAG_ARITY.get(flag);
    if (arity === undefined) {
      throw new UserError(`plink: ${flag} is not supported with --make-king (supported: ${[...FLAG_ARITY.keys()].join(' ')})`);
    }
    if (parameters.length < arity[0] || parameters.length > arity[1]) {
      const wanted = arity[0] === arity[1] ? `${arity[0]}` : arity[1] === Infinity ? `at least ${arity[0]}` : `${arity[0]} to ${arity[1]}`;
      throw new UserError(`plink: ${flag} takes ${wanted} parameter(s), got ${parameters.length}`);
    }
  }
  const one = (flag: string): string | undefined => flags.get(flag)?.[0];
  if (flags.has('--bfile') && flags.has('--vcf')) throw new UserError('plink: give --bfile or --vcf, not both');
  if (!flags.has('--bfile') && !flags.has('--vcf')) throw new UserError('plink: give the input with --bfile PREFIX or --vcf FILE');
  const input = flags.has('--vcf')
    ? { flag: '--vcf' as const, path: one('--vcf') as string }
    : { flag: '--bfile' as const, path: one('--bfile') ?? 'plink' };
  const kingModifiers = flags.get('--make-king');
  const tableModifiers = flags.get('--make-king-table');
  for (const modifier of tableModifiers ?? []) {
    if (modifier !== 'counts') throw new UserError(`plink: --make-king-table modifier '${modifier}' is not supported (supported: counts)`);
  }
  const cutoffText = one('--king-cutoff');
  const filterText = one('--king-table-filter');
  if (kingModifiers === undefined && tableModifiers === undefined && cutoffText === undefined) {
    throw new UserError('plink: --king-table-filter needs --make-king-table');
  }
  if (filterText !== undefined && tableModifiers === undefined) throw new UserError('plink: --king-table-filter needs --make-king-table');
  const selectionArgs = SELECTION_FLAGS.flatMap((flag) => {
    const parameters = flags.get(flag);
    if (parameters === undefined) return [];
    return flag === '--chr' ? [flag, parameters.join(',')] : [flag, ...parameters];
  });
  return {
    input,
    out: one('--out') ?? 'plink2',
    selectionArgs,
    resourceArgs: (['--threads', '--memory'] as const).flatMap((flag) => (flags.has(flag) ? [flag, one(flag) as string] : [])),
    matrix: kingModifiers === undefined ? null : matrixOf(kingModifiers),
    table: tableModifiers === undefined ? null : { counts: tableModifiers.includes('counts') },
    tableFilter: filterText === undefined ? null : numberOf('--king-table-filter', filterText, (value) => value <= 0.5),
    cutoff: cutoffText === undefined ? null : numberOf('--king-cutoff', cutoffText, (value) => value >= 0 && value < 0.5),
    force: flags.has('--force'),
    optionsInEffect: [...flags].map(([flag, parameters]) => [flag, ...parameters].join(' ')),
  };
}

/** The files a KING request writes, plink2's names: matrix and its .id, table, cutoff's sample lists, log. */
export function kingOutputPaths(request: KingRequest): string[] {
  const { out } = request;
  const paths: string[] = [];
  if (request.matrix !== null) paths.push(request.matrix.format === 'text' ? `${out}.king` : `${out}.king.bin`, `${out}.king.id`);
  if (request.table !== null) paths.push(`${out}.kin0`);
  if (request.cutoff !== null) paths.push(`${out}.king.cutoff.in.id`, `${out}.king.cutoff.out.id`);
  return [...paths, `${out}.log`];
}
