// The genotype input options `run` and `prepare` share: --input and its PLINK spellings --bfile/--vcf, and PLINK's
// selection flags (--chr, --from-bp/--to-bp, --extract/--exclude, --keep/--remove, --filter-founders, --maf, --geno).
import { Command, Option } from 'commander';
import { UserError } from '../core/errors.js';
import {
  SELECT_ALL, looksLikeVcf, parseChromosomeList, plinkPathsOf, readSampleIdFile, readVariantIdFile, type GenotypeSelection,
} from '../io/index.js';
import { parseFiniteNumber, parseNonNegativeInteger } from './numberOptions.js';

/** PLINK's values of --maf and --geno given without a value. */
const DEFAULT_MAF = 0.01;
const DEFAULT_GENO = 0.1;

/** Selection options as the command line gave them (commander's camelCase names). */
export interface SelectionOptionText {
  readonly chr?: string;
  readonly fromBp?: string;
  readonly toBp?: string;
  readonly extract?: string;
  readonly exclude?: string;
  readonly keep?: string;
  readonly remove?: string;
  readonly filterFounders?: true;
  readonly nonfounders?: true;
  /** `true` when the flag is given without a value. */
  readonly maf?: string | true;
  readonly geno?: string | true;
}

/** Adds --bfile and --vcf, PLINK's names for an --input of those kinds. */
export function addInputAliasOptions(command: Command): Command {
  return command
    .addOption(new Option('--bfile <prefix>', 'PLINK fileset prefix.bed/.bim/.fam (the same as --input)').conflicts(['input', 'vcf']))
    .addOption(new Option('--vcf <file>', 'VCF, .vcf or bgzipped .vcf.gz (the same as --input)').conflicts(['input']));
}

/** Adds PLINK's selection flags to `command`. */
export function addSelectionOptions(command: Command): Command {
  return command
    .option('--chr <codes...>', 'keep variants on these chromosomes (PLINK codes and ranges: 1-4,22,X)')
    .option('--from-bp <position>', 'keep variants at this position or after (needs one --chr)')
    .option('--to-bp <position>', 'keep variants at this position or before (needs one --chr)')
    .option('--extract <file>', 'keep the variants whose IDs the file lists')
    .option('--exclude <file>', 'remove the variants whose IDs the file lists')
    .option('--keep <file>', 'keep the samples the file lists (FID IID per line, or IID)')
    .option('--remove <file>', 'remove the samples the file lists (FID IID per line, or IID)')
    .option('--filter-founders', 'keep only founders (.fam father and mother IDs both 0; every VCF sample is one)')
    .option('--nonfounders', '--maf counts every kept sample (PLINK\'s default, and snptally\'s, counts founders only)')
    .option('--maf [frequency]', `remove variants whose minor allele frequency is below this (default: ${DEFAULT_MAF})`)
    .option('--geno [rate]', `remove variants whose missing-call rate is above this (default: ${DEFAULT_GENO})`);
}

/** The input path of --input, --bfile or --vcf (or a positional argument), checked against the kind it names. */
export function genotypeInputOf(
  values: { readonly input?: string; readonly bfile?: string; readonly vcf?: string }, positional?: string,
): string | undefined {
  const given = [['input', values.input], ['bfile', values.bfile], ['vcf', values.vcf], ['<input>', positional]]
    .filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (given.length > 1) throw new UserError(`give the input once: ${given.map(([name]) => name.startsWith('<') ? name : `--${name}`).join(' and ')}`);
  if (values.bfile !== undefined && plinkPathsOf(values.bfile) === null) {
    throw new UserError(`--bfile ${values.bfile}: there is no ${values.bfile}.bed`);
  }
  if (values.vcf !== undefined && !looksLikeVcf(values.vcf)) {
    throw new UserError(`--vcf ${values.vcf}: a VCF's name ends in .vcf, .vcf.gz or .vcf.bgz`);
  }
  return given.length === 0 ? undefined : given[0][1];
}

/** Picks the selection options out of commander's untyped record. */
export function readSelectionOptionText(values: Record<string, unknown>): SelectionOptionText {
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (Array.isArray(value)) return value.join(',');
    return typeof value === 'string' ? value : undefined;
  };
  const textOrFlag = (name: string): string | true | undefined => (values[name] === true ? true : text(name));
  return {
    chr: text('chr'), fromBp: text('fromBp'), toBp: text('toBp'), extract: text('extract'), exclude: text('exclude'),
    keep: text('keep'), remove: text('remove'), ...(values.filterFounders === true ? { filterFounders: true as const } : {}),
    ...(values.nonfounders === true ? { nonfounders: true as const } : {}),
    maf: textOrFlag('maf'), geno: textOrFlag('geno'),
  };
}

/** Whether any selection option is given. */
export function hasSelectionOptions(text: SelectionOptionText): boolean {
  return Object.values(text).some((value) => value !== undefined);
}

/**
 * Checks the selection options and reads their ID files.
 * @throws UserError naming the option or file: a bad chromosome list or range, --from-bp/--to-bp without exactly one
 * chromosome, a frequency out of range, an ID file that cannot be read.
 */
export async function parseSelection(text: SelectionOptionText): Promise<GenotypeSelection> {
  if (!hasSelectionOptions(text)) return SELECT_ALL;
  const chromosomes = text.chr === undefined ? null : { text: text.chr, names: parseChromosomeList(text.chr) };
  let basePairRange: GenotypeSelection['basePairRange'] = null;
  if (text.fromBp !== undefined || text.toBp !== undefined) {
    if (chromosomes === null || chromosomes.names.size !== 1) {
      throw new UserError('--from-bp and --to-bp need --chr with exactly one chromosome (as in PLINK)');
    }
    const fromBp = text.fromBp === undefined ? 0 : parseNonNegativeInteger('--from-bp', text.fromBp);
    const toBp = text.toBp === undefined ? Number.MAX_SAFE_INTEGER : parseNonNegativeInteger('--to-bp', text.toBp);
    if (fromBp > toBp) throw new UserError(`--from-bp ${fromBp} is after --to-bp ${toBp}`);
    basePairRange = { fromBp, toBp };
  }
  const idFile = async (option: string, path: string | undefined): Promise<{ path: string; ids: ReadonlySet<string> } | null> =>
    path === undefined ? null : { path, ids: await readVariantIdFile(path, option) };
  return {
    chromosomes,
    basePairRange,
    extract: await idFile('--extract', text.extract),
    exclude: await idFile('--exclude', text.exclude),
    keep: text.keep === undefined ? null : await readSampleIdFile(text.keep, '--keep'),
    remove: text.remove === undefined ? null : await readSampleIdFile(text.remove, '--remove'),
    filterFounders: text.filterFounders === true,
    nonfounders: text.nonfounders === true,
    maxMissingRate: fraction('--geno', text.geno, DEFAULT_GENO, 1),
    minMinorAlleleFrequency: fraction('--maf', text.maf, DEFAULT_MAF, 0.5),
  };
}

function fraction(option: string, text: string | true | undefined, fallback: number, most: number): number | null {
  if (text === undefined) return null;
  if (text === true) return fallback;
  const value = parseFiniteNumber(option, text);
  if (value < 0 || value > most) throw new UserError(`${option} must be between 0 and ${most}, got "${text}"`);
  return value;
}

/** --case-control, --pheno and --pheno-name as genotypePreparation.ts takes them (null: samples in source order). */
export function caseControlOptionsOf(options: Record<string, unknown>): { pheno: string | null; phenoName: string | null } | null {
  const pheno = typeof options.pheno === 'string' ? options.pheno : null;
  const phenoName = typeof options.phenoName === 'string' ? options.phenoName : null;
  if (phenoName !== null && pheno === null) throw new UserError('--pheno-name names a column of a --pheno file: give --pheno too');
  return options.caseControl === true || pheno !== null ? { pheno, phenoName } : null;
}
