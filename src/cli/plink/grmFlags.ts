// `snptally plink` with plink2's GRM flags: --make-rel [cov] [meanimpute] [square|square0|triangle] [bin|bin4] and
// --make-grm-bin [cov] [meanimpute] [id-header], plink2's --bad-freqs, with the front end's input, output, resource and selection flags,
// plink2's defaults and conflicts (plink2.cc's parser), and everything else refused by name.
import { UserError } from '../../core/errors.js';
import type { MatrixFormat, MatrixShape } from '../../io/index.js';
import {
  COMMON_FLAG_ARITY, firstParameter, parsePlinkCommandLine, plinkInputOf, selectionArgsOf, type FlagArity,
} from './plinkCommandLine.js';

/** Flags that make a command line a GRM one. */
export const GRM_FLAGS = ['--make-rel', '--make-grm-bin'] as const;

const FLAG_ARITY: ReadonlyMap<string, FlagArity> = new Map([...COMMON_FLAG_ARITY, ['--make-rel', [0, 4]], ['--make-grm-bin', [0, 3]], ['--bad-freqs', [0, 0]]]);

/** What a GRM command line asks for. */
export interface GrmRequest {
  readonly input: { readonly flag: '--bfile' | '--vcf'; readonly path: string };
  readonly out: string;
  /** snptally flags for prepare's selection, e.g. ['--chr', '1,2', '--maf']. */
  readonly selectionArgs: readonly string[];
  /** `--threads`: BLAS threads (null: the machine's cores). */
  readonly threads: number | null;
  /** `--memory` MiB: the GRM's estimated memory must fit (null: no limit). */
  readonly memoryMiB: number | null;
  /** `--nonfounders`: allele frequencies from every sample, not only the founders. */
  readonly nonfounders: boolean;
  /** `--bad-freqs`: allow frequencies from fewer than 50 founders (or samples), which plink2 refuses without it. */
  readonly badFreqs: boolean;
  /** `cov`: centred genotypes, not variance-standardized. */
  readonly covariance: boolean;
  /** `meanimpute`: every sum over all SNPs (a missing call is the mean), not over the pair's SNPs both called. */
  readonly meanImpute: boolean;
  /** `--make-rel`: the matrix's shape and encoding; null for `--make-grm-bin`. */
  readonly rel: { readonly shape: MatrixShape; readonly format: MatrixFormat } | null;
  /** `--make-grm-bin id-header`: the .grm.id starts with a `#FID\tIID` header. */
  readonly grmIdHeader: boolean;
  readonly force: boolean;
  /** The flags as PLINK's log lists them ("Options in effect"). */
  readonly optionsInEffect: readonly string[];
}

/** Whether PLINK's arguments ask for a GRM. */
export function isGrmCommandLine(args: readonly string[]): boolean {
  return args.some((arg) => (GRM_FLAGS as readonly string[]).includes(arg));
}

/** A positive integer parameter of `flag`. */
function positiveIntegerOf(flag: string, text: string | undefined): number | null {
  if (text === undefined) return null;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new UserError(`plink: invalid ${flag} argument '${text}' (a positive integer)`);
  return value;
}

/** Checks `modifiers` of `flag` against the supported ones; at most one of each group in `exclusive`. */
function checkModifiers(flag: string, modifiers: readonly string[], supported: readonly string[], exclusive: readonly (readonly string[])[]): void {
  for (const modifier of modifiers) {
    if (!supported.includes(modifier)) throw new UserError(`plink: ${flag} modifier '${modifier}' is not supported (supported: ${supported.join(' ')})`);
    if (modifiers.indexOf(modifier) !== modifiers.lastIndexOf(modifier)) throw new UserError(`plink: ${flag} modifier '${modifier}' is given twice`);
  }
  for (const group of exclusive) {
    if (group.filter((m) => modifiers.includes(m)).length > 1) throw new UserError(`plink: ${flag} takes one of ${group.join(', ')}`);
  }
}

/**
 * Parses a GRM command line.
 * @throws UserError naming the first unsupported flag or modifier, a wrong number of parameters, or plink2's conflicts.
 */
export function parseGrmFlags(args: readonly string[]): GrmRequest {
  const flags = parsePlinkCommandLine(args, FLAG_ARITY, ' with --make-rel / --make-grm-bin');
  const relModifiers = flags.get('--make-rel');
  const grmModifiers = flags.get('--make-grm-bin');
  if (relModifiers !== undefined && grmModifiers !== undefined) throw new UserError('plink: --make-rel cannot be used with --make-grm-bin');
  const modifiers = relModifiers ?? grmModifiers ?? [];
  let rel: GrmRequest['rel'] = null;
  if (relModifiers !== undefined) {
    const shapes = ['triangle', 'square', 'square0'] as const;
    const formats = ['bin', 'bin4'] as const;
    checkModifiers('--make-rel', relModifiers, ['cov', 'meanimpute', ...shapes, ...formats], [shapes, formats]);
    const format = formats.find((m) => relModifiers.includes(m)) ?? 'text';
    // plink2's default shape: square for bin/bin4, triangle for text.
    rel = { shape: shapes.find((m) => relModifiers.includes(m)) ?? (format === 'text' ? 'triangle' : 'square'), format };
  } else {
    checkModifiers('--make-grm-bin', modifiers, ['cov', 'meanimpute', 'id-header'], []);
  }
  return {
    input: plinkInputOf(flags),
    out: firstParameter(flags, '--out') ?? 'plink2',
    selectionArgs: selectionArgsOf(flags),
    threads: positiveIntegerOf('--threads', firstParameter(flags, '--threads')),
    memoryMiB: positiveIntegerOf('--memory', firstParameter(flags, '--memory')),
    nonfounders: flags.has('--nonfounders'),
    badFreqs: flags.has('--bad-freqs'),
    covariance: modifiers.includes('cov'),
    meanImpute: modifiers.includes('meanimpute'),
    rel,
    grmIdHeader: modifiers.includes('id-header'),
    force: flags.has('--force'),
    optionsInEffect: [...flags].map(([flag, parameters]) => [flag, ...parameters].join(' ')),
  };
}

/** The files a GRM request writes, plink2's names: the matrix (and counts) with its .id, and the log. */
export function grmOutputPaths(request: GrmRequest): string[] {
  const { out, rel } = request;
  if (rel !== null) return [rel.format === 'text' ? `${out}.rel` : `${out}.rel.bin`, `${out}.rel.id`, `${out}.log`];
  return [`${out}.grm.bin`, `${out}.grm.N.bin`, `${out}.grm.id`, `${out}.log`];
}
