// `snptally epistasis`: the exact top-N pairs or triples of SNPs by K2, MI or IG of their case-control genotype
// tables, over a PLINK fileset or VCF (samples ordered [controls | cases] by phenotype as they are read) or a file
// prepared with `prepare --case-control`; each result with its SNPs' names and positions and its table.
import { availableParallelism } from 'node:os';
import { Command, Option } from 'commander';
import { UserError } from '../../core/errors.js';
import type { EpistasisScore } from '../../core/types.js';
import { addInputAliasOptions, addSelectionOptions, genotypeInputOf, parseSelection, readSelectionOptionText } from '../genotypeInputOptions.js';
import { parseBadSitePolicy } from '../genotypePreparation.js';
import { parsePositiveInteger } from '../numberOptions.js';
import { createProgressDisplay } from '../progressBar.js';
import { resolveRunInput } from '../runInput.js';
import { caseControlOptionsOf } from '../prepareCommand.js';
import { searchEpistasis, tupleCount, type EpistasisSearchResult } from './epistasisSearch.js';
import { formatEpistasisText, epistasisJson } from './epistasisReport.js';

/** Adds the `epistasis` command to `program`. */
export function addEpistasisCommand(program: Command): void {
  const command = program.command('epistasis')
    .summary('case-control epistasis: the exact top-N pairs or triples of SNPs by K2, MI or IG')
    .description(
      'Score every pair (--order 2) or triple (--order 3) of SNPs by its 3^k × 2 table of genotypes in controls and cases ' +
      '(samples missing at any SNP of the tuple are left out of it) and print the N strongest, exactly: K2 (smaller is ' +
      'stronger), MI or IG in bits (larger). Phenotypes: .fam column 6 or --pheno (1 control, 2 case, 0/-9/non-numeric missing).')
    .option('--input <file>', 'PLINK fileset, VCF, or a file prepared with `snptally prepare --case-control`')
    .addOption(new Option('--order <k>', 'pairs or triples').choices(['2', '3']).default('2'))
    .addOption(new Option('--score <score>', 'k2, mi or ig').choices(['k2', 'mi', 'ig']).default('k2'))
    .option('--top <n>', 'how many tuples to print', '10')
    .option('--pheno <file>', "phenotypes in PLINK's --pheno format (FID IID values, header optional)")
    .option('--pheno-name <name>', 'the --pheno column to read (the file needs a FID IID header)')
    .addOption(new Option('--backend <backend>', 'kernel set').choices(['cpu', 'ref', 'webgpu', 'auto']).default('cpu'))
    .option('--threads <n>', 'kernel threads', String(availableParallelism()))
    .option('--npv <n>', 'vector blocks (ranks)', '1')
    .option('--npr <n>', 'replicas (ranks)', '1')
    .option('--phases <n>', 'phases', '1')
    .option('--stages <n>', 'stages (3-way)', '1')
    .addOption(new Option('--on-bad-site <policy>', 'malformed VCF sites').choices(['skip', 'error']).default('error'))
    .option('--json', 'print one JSON object', false);
  addSelectionOptions(addInputAliasOptions(command))
    .action(async (_options: unknown, action: Command) => {
      const options = action.opts();
      const input = genotypeInputOf(options);
      if (input === undefined) throw new UserError('epistasis needs an input: --bfile, --vcf or --input');
      const order = Number(options.order) as 2 | 3;
      const score = String(options.score) as EpistasisScore;
      const top = parsePositiveInteger('--top', String(options.top));
      const count = (name: string): number => parsePositiveInteger(`--${name}`, String(options[name]));
      const numPhase = count('phases');
      const numStage = count('stages');
      if (order === 2 && numStage > 1) throw new UserError('--stages is for --order 3');
      const selection = await parseSelection(readSelectionOptionText(options));
      const runInput = await resolveRunInput(input, {
        onBadSite: parseBadSitePolicy(options.onBadSite as string | undefined), allowConversion: true, selection,
        caseControl: caseControlOptionsOf({ ...options, caseControl: true }),
      });
      try {
        const sidecar = runInput.sidecar;
        if (sidecar === null || (sidecar.caseControl ?? null) === null) {
          throw new UserError(`--input ${input}: not prepared with --case-control (run \`snptally prepare ${input} --case-control --out FILE\`, or give the fileset)`);
        }
        if (runInput.kind === 'prepared' && (options.pheno !== undefined || options.phenoName !== undefined)) {
          throw new UserError(`--pheno: ${input} is prepared, its samples are ordered by the phenotypes it was prepared with`);
        }
        if (sidecar.numVector < order) throw new UserError(`${input}: ${sidecar.numVector} SNPs, --order ${order} needs at least ${order}`);
        const progress = createProgressDisplay(process.stderr.isTTY === true && options.json !== true);
        let result: EpistasisSearchResult;
        try {
          result = await searchEpistasis({
            packedPath: runInput.packedPath, sidecar, order, score, top, backend: options.backend as 'cpu',
            numThreads: parsePositiveInteger('--threads', String(options.threads)),
            decomposition: {
              numProcVector: count('npv'), numProcField: 1, numProcRepl: count('npr'), numPhase, phaseMin: 0, phaseMax: numPhase - 1,
              numStage, stageMin: 0, stageMax: numStage - 1, halfDiagonal: 'lower-rows',
            },
            ...(progress.onProgress === undefined ? {} : { onProgress: progress.onProgress }),
          });
        } finally {
          progress.stop();
        }
        const report = { input, order, score, sidecar, result, numTuples: tupleCount(sidecar.numVector, order) };
        process.stdout.write(options.json === true ? `${JSON.stringify(epistasisJson(report))}\n` : formatEpistasisText(report));
      } finally {
        runInput.dispose();
      }
    });
}
