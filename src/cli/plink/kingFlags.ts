// `snptally plink` with plink2's relatedness flags: --make-king [modifiers], --make-king-table [counts],
// --king-table-filter X and --king-cutoff X, with the input, output, resource and selection flags of the front end
// (and snptally's --backend), their modifiers, plink2's conflicts and ranges (plink2.cc's parser), and everything else
// refused by name.
import { UserError } from '../../core/errors.js';
import type { MatrixFormat, MatrixShape } from '../../io/index.js';
import {
  COMMON_FLAG_ARITY, firstParameter, parsePlinkCommandLine, plinkInputOf, resourceArgsOf, selectionArgsOf, type FlagArity,
} from './plinkCommandLine.js';

/** Flags that make a command line a KING one (the front end's other analyses take none of them). */
export const KING_FLAGS = ['--make-king', '--make-king-table', '--king-table-filter', '--king-cutoff'] as const;

/** Every flag of a KING command line: [least, most] parameters. */
const FLAG_ARITY: ReadonlyMap<string, FlagArity> = new Map([
  ...COMMON_FLAG_ARITY, ['--make-king', [0, 2]], ['--make-king-table', [0, 1]], ['--king-table-filter', [1, 1]], ['--king-cutoff', [1, 1]],
  // snptally's own: the runs' backend (`run --backend`; on the GPU the kinship is finalized there too).
  ['--backend', [1, 1]],
]);

/** What a KING command line asks for. */
export interface KingRequest {
  readonly input: { readonly flag: '--bfile' | '--vcf'; readonly path: string };
  readonly out: string;
  /** snptally flags for prepare's selection, e.g. ['--chr', '1,2', '--maf']. */
  readonly selectionArgs: readonly string[];
  /** snptally flags of the runs' resources: --threads, --memory, --backend. */
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
  const flags = parsePlinkCommandLine(args, FLAG_ARITY, ' with --make-king');
  const one = (flag: string): string | undefined => firstParameter(flags, flag);
  const input = plinkInputOf(flags);
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
  const selectionArgs = selectionArgsOf(flags);
  return {
    input,
    out: one('--out') ?? 'plink2',
    selectionArgs,
    resourceArgs: [...resourceArgsOf(flags), ...(flags.has('--backend') ? ['--backend', one('--backend') as string] : [])],
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
