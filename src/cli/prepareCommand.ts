// `snptally prepare`: converts a PLINK fileset or VCF into a packed vector file and its JSON sidecar.
import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { UserError } from '../core/errors.js';
import { plinkPathsOf, refuseOutputOverInput, removeLeftoverTemporariesOfFiles, sidecarPathOf } from '../io/index.js';
import {
  addInputAliasOptions, addSelectionOptions, caseControlOptionsOf, genotypeInputOf, parseSelection, readSelectionOptionText,
} from './genotypeInputOptions.js';
import { prepareGenotypeFile, parseBadSitePolicy } from './genotypePreparation.js';
import { cleanUpOnInterrupt } from './interruptCleanup.js';
import { parseNonNegativeInteger } from './numberOptions.js';
import { writeCommandOutput } from './stdout.js';

/** Adds the `prepare` command to `program`. */
export function addPrepareCommand(program: Command): void {
  const command = program.command('prepare')
    .summary('convert a PLINK fileset or VCF into a packed vector file with a sidecar')
    .description(
      'Convert a PLINK 1 fileset (x.bed/.bim/.fam; give x or x.bed) or a VCF (.vcf, .vcf.gz, bgzipped) ' +
      'into a packed vector file OUT (SPEC §1) and its sidecar OUT.json (sizes, SNP and sample IDs, vector order, ' +
      'what a selection kept, SHA-256 of OUT). `run --input OUT` then needs no sizes.')
    .argument('[input]', 'PLINK fileset prefix or .bed, or VCF (or give --input, --bfile or --vcf)')
    .option('--input <file>', 'the input, as the argument')
    .requiredOption('--out <file>', 'packed output file (the sidecar is <file>.json)')
    .option('--permute <seed>', 'shuffle vector order with this seed (0 ≤ seed < 2^32); recorded in the sidecar')
    .option('--individuals', 'vectors are the samples and fields the SNPs (sample-major, for relatedness: KING)', false)
    .option('--autosome', 'keep only variants on chromosomes 1–22 (PLINK\'s --autosome), after the selection', false)
    .addOption(new Option('--on-bad-site <policy>', 'multi-allelic, non-diploid or malformed VCF sites')
      .choices(['skip', 'error']).default('error'))
    .option('--force', 'overwrite an existing output file', false)
    .option('--json', 'print the sizes and checksum as one JSON object', false)
    .option('--case-control', 'order samples [controls | cases] by phenotype (.fam column 6, or --pheno), leaving out missing ones (epistasis)', false)
    .option('--pheno <file>', "phenotypes in PLINK's --pheno format (FID IID values); implies --case-control")
    .option('--pheno-name <name>', 'the --pheno column to read (the file needs a FID IID header)');
  addSelectionOptions(addInputAliasOptions(command))
    .action(async (positional: string | undefined, _options: unknown, action: Command) => {
      const options = action.opts();
      const input = genotypeInputOf(options, positional);
      if (input === undefined) throw new UserError('prepare needs an input: a PLINK fileset or VCF (argument, --input, --bfile or --vcf)');
      const selection = await parseSelection(readSelectionOptionText(options));
      const out = String(options.out);
      const plinkPaths = plinkPathsOf(input);
      refuseOutputOverInput('prepare', [out, sidecarPathOf(out)],
        [input, ...(plinkPaths === null ? [] : [plinkPaths.bed, plinkPaths.bim, plinkPaths.fam])]);
      if (!options.force && (existsSync(out) || existsSync(sidecarPathOf(out)))) {
        throw new UserError(`${out} or its sidecar exists already; use --force to overwrite`);
      }
      if (options.force === true) removeLeftoverTemporariesOfFiles([out, sidecarPathOf(out)]);
      const permuteSeed = typeof options.permute === 'string' ? parseSeed(options.permute) : null;
      const bySample = options.individuals === true;
      if (bySample && permuteSeed !== null) throw new UserError('--permute cannot be used with --individuals (sample-major files keep the sample order)');
      // The packed file's temporary names are <out>.<pid>-<hex>.tmp, the sidecar's <out>.json.<pid>-<hex>.tmp.
      cleanUpOnInterrupt({ outputPrefixes: [`${out}.`] });
      const sidecar = await prepareGenotypeFile(input, out, {
        onBadSite: parseBadSitePolicy(options.onBadSite as string | undefined), permuteSeed, selection,
        vectors: bySample ? 'samples' : 'snps', autosomesOnly: options.autosome === true,
        caseControl: caseControlOptionsOf(options),
      });
      const kept = sidecar.selection ?? null;
      const summary = {
        packedPath: out,
        sidecarPath: sidecarPathOf(out),
        numVector: sidecar.numVector,
        numField: sidecar.numField,
        numMissingCalls: sidecar.numMissingCalls,
        skippedSites: sidecar.skippedSites.count,
        permuteSeed,
        packedSha256: sidecar.packedSha256,
        vectors: bySample ? 'samples' : 'snps',
        selection: kept,
      };
      writeCommandOutput(options.json === true ? `${JSON.stringify(summary)}\n` :
        `prepared ${out}: ${bySample ? `${summary.numVector} samples × ${summary.numField} SNPs` : `${summary.numVector} SNPs × ${summary.numField} samples`}, ` +
        `${summary.numMissingCalls} missing calls, ${summary.skippedSites} sites skipped` +
        `${permuteSeed === null ? '' : `, vector order shuffled with seed ${permuteSeed}`}\n` +
        (kept === null ? '' : `selection kept ${kept.numVariantKept} of ${kept.numVariantInput} SNPs and ` +
          `${kept.numSampleKept} of ${kept.numSampleInput} samples\n`) +
        `sidecar ${summary.sidecarPath} sha256 ${summary.packedSha256}\n`);
    });
}

function parseSeed(text: string): number {
  const seed = parseNonNegativeInteger('--permute', text);
  if (seed > 0xffffffff) throw new UserError(`--permute must be below 2^32, got ${seed}`);
  return seed;
}
