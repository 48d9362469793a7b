// Power of the exhaustive epistasis search (issue 27, seed 002's evaluation): for each model — order, pure or with
// marginal effects, MAF, heritability — simulate --datasets case-control sets (tools/lib/epistasisSimulation.ts, one
// seed per set), run `snptally epistasis`'s exact search once per score (K2, MI, IG) and count how often the planted
// tuple is the top-1 and in the top 10. Prints one Markdown table (docs/epistasis-power.md has the figures).
//
//   node dist/tools/epistasis-power.js [--snps 100] [--samples 1000] [--datasets 20] [--threads 2]
//        [--models order:pure|marginal:maf:h2,…]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EpistasisScore } from '../src/core/types.js';
import { prepareGenotypeFile, searchEpistasis } from '../src/cli/index.js';
import { SELECT_ALL } from '../src/io/index.js';
import { createToolProgram, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';
import { simulateEpistasis, type PenetranceModel } from './lib/epistasisSimulation.js';

interface PowerOptions {
  readonly snps: number;
  readonly samples: number;
  readonly datasets: number;
  readonly threads: number;
  readonly models: string;
}

/** One simulated model: order 2 or 3, pure or marginal, MAF, heritability (prevalence 0.5: the most room for h²). */
interface ModelSetting {
  readonly order: 2 | 3;
  readonly model: PenetranceModel;
  readonly maf: number;
  readonly heritability: number;
}

/** The default grid: pure models at two MAFs and heritabilities, and one with marginal effects, per order. */
const DEFAULT_MODELS = '2:pure:0.2:0.012,2:pure:0.4:0.01,2:pure:0.4:0.02,2:marginal:0.4:0.03,' +
  '3:pure:0.4:0.015,3:pure:0.4:0.025,3:pure:0.5:0.03,3:marginal:0.4:0.015';

const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];

const program = createToolProgram('epistasis-power', 'how often the exact epistasis search finds a planted interaction (top-1, top-10), per score')
  .addOption(valueOption('--snps <n>', 'SNPs per data set', parsePositiveInteger, '100'))
  .addOption(valueOption('--samples <n>', 'samples per data set (half cases)', parsePositiveInteger, '1000'))
  .addOption(valueOption('--datasets <n>', 'simulated data sets per model', parsePositiveInteger, '20'))
  .addOption(valueOption('--threads <n>', 'kernel threads', parsePositiveInteger, '2'))
  .option('--models <list>', 'comma-separated order:pure|marginal:maf:h2', DEFAULT_MODELS);
const options = parseToolOptions<PowerOptions>(program);

function parseModels(text: string): ModelSetting[] {
  return text.split(',').map((item) => {
    const [order, model, maf, heritability] = item.split(':');
    const setting = { order: Number(order), model, maf: Number(maf), heritability: Number(heritability) };
    if ((setting.order !== 2 && setting.order !== 3) || (model !== 'pure' && model !== 'marginal') ||
      !(setting.maf > 0 && setting.maf < 1) || !(setting.heritability > 0 && setting.heritability < 1)) {
      process.stderr.write(`epistasis-power: --models: "${item}" is not order(2|3):pure|marginal:maf:h2\n`);
      process.exit(1);
    }
    return setting as ModelSetting;
  });
}

const ONE_RANK = {
  numProcVector: 1, numProcField: 1, numProcRepl: 1, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0,
  halfDiagonal: 'lower-rows' as const,
};

const models = parseModels(options.models);
const dir = mkdtempSync(join(tmpdir(), 'epistasis-power-'));
const started = performance.now();
try {
  process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${options.snps} SNPs × ${options.samples} samples, ` +
    `${options.datasets} data sets per model, ${options.threads} threads, prevalence 0.5\n\n`);
  process.stdout.write('| order | model | MAF | h² | K2 top-1 | K2 top-10 | MI top-1 | MI top-10 | IG top-1 | IG top-10 |\n');
  process.stdout.write('|---|---|---|---|---|---|---|---|---|---|\n');
  for (const setting of models) {
    const top1 = new Map<EpistasisScore, number>(SCORES.map((s) => [s, 0]));
    const top10 = new Map<EpistasisScore, number>(SCORES.map((s) => [s, 0]));
    // Planted SNPs spread over the set, away from its ends.
    const step = Math.floor(options.snps / (setting.order + 1));
    const planted = Array.from({ length: setting.order }, (_, t) => (t + 1) * step);
    for (let set = 0; set < options.datasets; set++) {
      const prefix = join(dir, 'set');
      const numCases = Math.floor(options.samples / 2);
      simulateEpistasis(prefix, {
        numSnp: options.snps, numCases, numControls: options.samples - numCases, maf: setting.maf, prevalence: 0.5,
        heritability: setting.heritability, model: setting.model, planted, missingRate: 0, seed: 1000 * set + 17,
      });
      const packedPath = `${prefix}.packed`;
      const sidecar = await prepareGenotypeFile(prefix, packedPath, {
        onBadSite: 'error', permuteSeed: null, selection: SELECT_ALL, caseControl: { pheno: null, phenoName: null },
      });
      for (const score of SCORES) {
        const result = await searchEpistasis({
          packedPath, sidecar, order: setting.order, score, top: 10, backend: 'cpu', numThreads: options.threads, decomposition: ONE_RANK,
        });
        const rank = result.hits.findIndex((hit) => hit.vectors.join(',') === planted.join(','));
        if (rank === 0) top1.set(score, top1.get(score)! + 1);
        if (rank >= 0) top10.set(score, top10.get(score)! + 1);
      }
      rmSync(packedPath, { force: true });
    }
    const percent = (count: number): string => `${Math.round((100 * count) / options.datasets)}%`;
    const cells = SCORES.flatMap((score) => [percent(top1.get(score)!), percent(top10.get(score)!)]);
    process.stdout.write(`| ${setting.order} | ${setting.model} | ${setting.maf} | ${setting.heritability} | ${cells.join(' | ')} |\n`);
  }
  process.stdout.write(`\n${((performance.now() - started) / 1000).toFixed(0)} s\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
