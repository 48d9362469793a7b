// Writes a case-control PLINK fileset with a planted 2-, 3- or 4-way interaction (tools/lib/epistasisSimulation.ts) and
// prints the planted SNPs, the penetrance table and its strength as one JSON line.
//
//   node dist/tools/simulate-epistasis.js --out PREFIX [--snps 200] [--cases 500] [--controls 500] [--maf 0.4]
//        [--prevalence 0.5] [--heritability 0.03] [--model pure|marginal] [--planted 10,20] [--missing 0] [--seed 1]
import {
  createToolProgram, listOf, parseFraction, parseNonNegativeInteger, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';
import { simulateEpistasis, type PenetranceModel } from './lib/epistasisSimulation.js';

interface SimulateOptions {
  readonly out: string;
  readonly snps: number;
  readonly cases: number;
  readonly controls: number;
  readonly maf: number;
  readonly prevalence: number;
  readonly heritability: number;
  readonly model: PenetranceModel;
  readonly planted: number[];
  readonly missing: number;
  readonly seed: number;
}

const program = createToolProgram('simulate-epistasis', 'a case-control PLINK fileset with a planted 2-, 3- or 4-way interaction')
  .requiredOption('--out <prefix>', 'write <prefix>.bed, .bim, .fam')
  .addOption(valueOption('--snps <n>', 'SNPs', parsePositiveInteger, '200'))
  .addOption(valueOption('--cases <n>', 'cases', parsePositiveInteger, '500'))
  .addOption(valueOption('--controls <n>', 'controls', parsePositiveInteger, '500'))
  .addOption(valueOption('--maf <p>', 'allele-1 frequency of every SNP', parseFraction, '0.4'))
  .addOption(valueOption('--prevalence <K>', 'prevalence (mean penetrance)', parseFraction, '0.5'))
  .addOption(valueOption('--heritability <h2>', 'Var(penetrance) / (K(1 − K))', parseFraction, '0.03'))
  .option('--model <model>', 'pure (no marginal effects) or marginal', 'pure')
  .addOption(valueOption('--planted <snps>', 'comma-separated 0-based SNP indices, 2 to 4', listOf(parseNonNegativeInteger), '10,20'))
  .addOption(valueOption('--missing <rate>', 'fraction of calls set missing at random', parseFraction, '0'))
  .addOption(valueOption('--seed <n>', 'random seed', parseNonNegativeInteger, '1'));
const options = parseToolOptions<SimulateOptions>(program);
if (options.model !== 'pure' && options.model !== 'marginal') {
  process.stderr.write(`simulate-epistasis: --model must be pure or marginal, got "${String(options.model)}"\n`);
  process.exit(1);
}
try {
  const report = simulateEpistasis(options.out, {
    numSnp: options.snps, numCases: options.cases, numControls: options.controls, maf: options.maf, prevalence: options.prevalence,
    heritability: options.heritability, model: options.model, planted: options.planted, missingRate: options.missing, seed: options.seed,
  });
  process.stdout.write(`${JSON.stringify(report)}\n`);
} catch (error) {
  process.stderr.write(`simulate-epistasis: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
