// `snptally plink --distance [modifiers]`: PLINK 1.9's genotype distance flags (plink.c's parser: shapes square,
// square0, triangle; encodings gz, bin, bin4; kinds allele-ct, ibs, 1-ibs; flat-missing; its conflicts and
// defaults), with the input, output, resource and selection flags of the front end; everything else refused by name.
import { UserError } from '../../core/errors.js';
import type { MatrixShape } from '../../io/index.js';
import {
  COMMON_FLAG_ARITY, firstParameter, parsePlinkCommandLine, plinkInputOf, resourceArgsOf, selectionArgsOf, type FlagArity,
} from './plinkCommandLine.js';

/** How a distance matrix is written: PLINK's text, its gzip, float64 or float32. */
export type DistanceEncoding = 'text' | 'gz' | 'bin' | 'bin4';

/** Which matrices --distance writes: .dist (allele counts), .mibs (IBS), .mdist (1 − IBS). */
export interface DistanceKinds {
  readonly alleleCount: boolean;
  readonly ibs: boolean;
  readonly oneMinusIbs: boolean;
}

/** What a --distance command line asks for. */
export interface DistanceRequest {
  readonly input: { readonly flag: '--bfile' | '--vcf'; readonly path: string };
  readonly out: string;
  /** snptally flags for prepare's selection, e.g. ['--chr', '1,2', '--maf']. */
  readonly selectionArgs: readonly string[];
  /** snptally flags of the run's resources: --threads, --memory. */
  readonly resourceArgs: readonly string[];
  readonly shape: MatrixShape;
  readonly encoding: DistanceEncoding;
  readonly kinds: DistanceKinds;
  /** `flat-missing`: every SNP weighs the same in the missing-call rescaling (default: PLINK's allele-frequency weights). */
  readonly flatMissing: boolean;
  /** `--nonfounders`: the weights' allele frequencies count every sample, not only the founders. */
  readonly nonfounders: boolean;
  readonly force: boolean;
  /** The flags as PLINK's log lists them ("Options in effect"). */
  readonly optionsInEffect: readonly string[];
}

/** Every flag of a --distance command line: [least, most] parameters. */
const FLAG_ARITY: ReadonlyMap<string, FlagArity> = new Map([...COMMON_FLAG_ARITY, ['--distance', [0, 6]]]);

const SHAPES = ['square', 'square0', 'triangle'] as const;
const ENCODINGS = ['gz', 'bin', 'bin4'] as const;
const KINDS = ['allele-ct', 'ibs', '1-ibs'] as const;

/** Whether PLINK's arguments ask for --distance. */
export function isDistanceCommandLine(args: readonly string[]): boolean {
  return args.includes('--distance');
}

/** --distance's modifiers, with plink.c's conflicts and defaults. */
function modifiersOf(modifiers: readonly string[]): Pick<DistanceRequest, 'shape' | 'encoding' | 'kinds' | 'flatMissing'> {
  for (const modifier of modifiers) {
    if (![...SHAPES, ...ENCODINGS, ...KINDS, 'flat-missing'].includes(modifier)) throw new UserError(`plink: invalid --distance parameter '${modifier}'`);
  }
  const shapes = SHAPES.filter((m) => modifiers.includes(m));
  const encodings = ENCODINGS.filter((m) => modifiers.includes(m));
  if (shapes.length > 1) throw new UserError(`plink: --distance '${shapes[0]}' and '${shapes[1]}' modifiers cannot coexist`);
  if (encodings.length > 1) throw new UserError('plink: conflicting --distance modifiers');
  for (const kind of KINDS) {
    if (modifiers.filter((m) => m === kind).length > 1) throw new UserError(`plink: duplicate --distance '${kind}' modifier`);
  }
  const encoding: DistanceEncoding = encodings[0] ?? 'text';
  const binary = encoding === 'bin' || encoding === 'bin4';
  const chosen = (kind: (typeof KINDS)[number]): boolean => modifiers.includes(kind);
  const anyKind = KINDS.some(chosen);
  return {
    // PLINK 1.9's default shape: triangle for text, square for the binary encodings.
    shape: shapes[0] ?? (binary ? 'square' : 'triangle'),
    encoding,
    kinds: { alleleCount: chosen('allele-ct') || !anyKind, ibs: chosen('ibs'), oneMinusIbs: chosen('1-ibs') },
    flatMissing: modifiers.includes('flat-missing'),
  };
}

/**
 * Parses a --distance command line.
 * @throws UserError naming the first unsupported flag or modifier, a wrong number of parameters or PLINK's conflicts.
 */
export function parseDistanceFlags(args: readonly string[]): DistanceRequest {
  const flags = parsePlinkCommandLine(args, FLAG_ARITY, ' with --distance');
  return {
    input: plinkInputOf(flags),
    out: firstParameter(flags, '--out') ?? 'plink',
    selectionArgs: selectionArgsOf(flags),
    resourceArgs: resourceArgsOf(flags),
    ...modifiersOf(flags.get('--distance') ?? []),
    nonfounders: flags.has('--nonfounders'),
    force: flags.has('--force'),
    optionsInEffect: [...flags].map(([flag, parameters]) => [flag, ...parameters].join(' ')),
  };
}

/** The matrices a request writes: PLINK 1.9's extension of each, with its kind. */
export function distanceMatrices(request: DistanceRequest): { readonly extension: 'dist' | 'mibs' | 'mdist'; readonly kind: keyof DistanceKinds }[] {
  const matrices: { extension: 'dist' | 'mibs' | 'mdist'; kind: keyof DistanceKinds }[] = [];
  if (request.kinds.alleleCount) matrices.push({ extension: 'dist', kind: 'alleleCount' });
  if (request.kinds.ibs) matrices.push({ extension: 'mibs', kind: 'ibs' });
  if (request.kinds.oneMinusIbs) matrices.push({ extension: 'mdist', kind: 'oneMinusIbs' });
  return matrices;
}

/** The file of one matrix: `<out>.dist`, `.dist.gz` or `.dist.bin` (likewise .mibs, .mdist). */
export function distanceMatrixPath(request: DistanceRequest, extension: string): string {
  const suffix = request.encoding === 'gz' ? '.gz' : request.encoding === 'text' ? '' : '.bin';
  return `${request.out}.${extension}${suffix}`;
}

/** Every file a request writes: each matrix and its .id, and the log. */
export function distanceOutputPaths(request: DistanceRequest): string[] {
  return [...distanceMatrices(request).flatMap(({ extension }) => [distanceMatrixPath(request, extension), `${request.out}.${extension}.id`]), `${request.out}.log`];
}
