// `snptally plink --distance [modifiers]`: PLINK 1.9's genotype distance flags (plink.c's parser: shapes square,
// square0, triangle; encodings gz, bin, bin4; kinds allele-ct, ibs, 1-ibs; flat-missing; its conflicts and
// defaults), with the input, output, resource and selection flags of the front end; everything else refused by name.
import { UserError } from '../../core/errors.js';
import type { MatrixShape } from '../../io/index.js';
import { SELECTION_FLAGS, splitFlags } from './kingFlags.js';

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
  readonly force: boolean;
  /** The flags as PLINK's log lists them ("Options in effect"). */
  readonly optionsInEffect: readonly string[];
}

/** Every flag of a --distance command line: [least, most] parameters. */
const FLAG_ARITY: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['--bfile', [0, 1]], ['--vcf', [1, 1]], ['--out', [1, 1]], ['--threads', [1, 1]], ['--memory', [1, 1]],
  ['--chr', [1, Infinity]], ['--from-bp', [1, 1]], ['--to-bp', [1, 1]], ['--extract', [1, 1]], ['--exclude', [1, 1]],
  ['--keep', [1, 1]], ['--remove', [1, 1]], ['--maf', [0, 1]], ['--geno', [0, 1]], ['--force', [0, 0]],
  ['--distance', [0, 6]],
]);

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
  const flags = splitFlags(args);
  for (const [flag, parameters] of flags) {
    const arity = FLAG_ARITY.get(flag);
    if (arity === undefined) {
      throw new UserError(`plink: ${flag} is not supported with --distance (supported: ${[...FLAG_ARITY.keys()].join(' ')})`);
    }
    if (parameters.length < arity[0] || parameters.length > arity[1]) {
      const wanted = arity[0] === arity[1] ? `${arity[0]}` : arity[1] === Infinity ? `at least ${arity[0]}` : `${arity[0]} to ${arity[1]}`;
      throw new UserError(`plink: ${flag} takes ${wanted} parameter(s), got ${parameters.length}`);
    }
  }
  const one = (flag: string): string | undefined => flags.get(flag)?.[0];
  if (flags.has('--bfile') && flags.has('--vcf')) throw new UserError('plink: give --bfile or --vcf, not both');
  if (!flags.has('--bfile') && !flags.has('--vcf')) throw new UserError('plink: give the input with --bfile PREFIX or --vcf FILE');
  const selectionArgs = SELECTION_FLAGS.flatMap((flag) => {
    const parameters = flags.get(flag);
    if (parameters === undefined) return [];
    return flag === '--chr' ? [flag, parameters.join(',')] : [flag, ...parameters];
  });
  return {
    input: flags.has('--vcf') ? { flag: '--vcf', path: one('--vcf') as string } : { flag: '--bfile', path: one('--bfile') ?? 'plink' },
    out: one('--out') ?? 'plink',
    selectionArgs,
    resourceArgs: (['--threads', '--memory'] as const).flatMap((flag) => (flags.has(flag) ? [flag, one(flag) as string] : [])),
    ...modifiersOf(flags.get('--distance') ?? []),
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
