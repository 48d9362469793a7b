// `snptally report`: writes a self-contained HTML summary of a run (histograms, strongest tuples, parameters).
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { UserError } from '../core/errors.js';
import { refuseOutputOverInput, removeLeftoverTemporariesOfFiles, writeFileAtomically } from '../io/index.js';
import { entryHistograms } from './entryHistograms.js';
import { parseCount } from './numberOptions.js';
import { packageVersion } from './packageVersion.js';
import { renderReportHtml } from './reportHtml.js';
import { renderLdSection } from './report/ldSection.js';
import { recordedHistogram, recordedSelection } from './report/recordedRun.js';
import { entryThresholds, keptDistribution, recordedDistribution, type ValueDistribution } from './report/valueDistribution.js';
import { denseMatrixOf, findRunInfoFor, readRunInfo, runInfoPathOf, strongerRecordValues, type LoadedRunInfo } from './runInfoFile.js';
import { refuseRepeatedFiles } from './metricsInputs.js';
import { SnpNaming } from './snpNaming.js';
import { selectTopRecords } from './topRecords.js';
import { writeCommandOutput } from './stdout.js';

/** Most histogram bins: a panel is some 300 pixels wide, so more bins than this draw nothing more. */
const MAX_BINS = 1000;
/** Most tuples listed: an HTML table row each. */
const MAX_TOP_ROWS = 10_000;

/** Adds the `report` command to `program`. */
export function addReportCommand(program: Command): void {
  program.command('report')
    .summary('write an HTML summary of a run')
    .description(
      'write a self-contained HTML page (inline SVG, no scripts) summarising a run written with ' +
      'run --out STUB: the distribution of values on a log scale with the threshold marked (of every value when ' +
      'the run recorded --histograms, else of the kept records), for r² an LD heatmap and an LD-decay plot, the ' +
      'strongest pairs or triples with SNP names and loci, run parameters and throughput. RUN is STUB, ' +
      'STUB.run.json or one of the metrics files')
    .argument('<run>', 'STUB, STUB.run.json, or a metrics file of the run (or of merge)')
    .requiredOption('--out <file>', 'HTML file to write')
    .option('--top <n>', `strongest tuples listed (1 to ${MAX_TOP_ROWS})`, '25')
    .option('--bins <n>', `most histogram bins (1 to ${MAX_BINS})`, '100')
    .option('--force', 'overwrite an existing --out file', false)
    .action((run: string, _options: unknown, command: Command) => {
      const options = command.opts();
      const out = String(options.out);
      const numBins = parseCount('--bins', String(options.bins), { least: 1, most: MAX_BINS });
      const numTop = parseCount('--top', String(options.top), { least: 1, most: MAX_TOP_ROWS });
      const info = locateRunInfo(run);
      const matrix = denseMatrixOf(info);
      if (matrix !== null) throw new UserError(`${info.path}: the run wrote a dense ${matrix.shape} matrix (${matrix.format}), not records; report reads records`);
      const files = info.outputPaths;
      refuseOutputOverInput('report', [out], [info.path, ...files, ...(info.sidecarPath === null ? [] : [info.sidecarPath])]);
      if (options.force !== true && existsSync(out)) throw new UserError(`${out} exists already; use --force to overwrite`);
      if (options.force === true) removeLeftoverTemporariesOfFiles([out]);
      if (files.length === 0) throw new UserError(`${info.path}: the run wrote no metrics files`);
      refuseRepeatedFiles(files);
      const naming = SnpNaming.load(info.sidecarPath, info.numVector);
      const html = renderReportHtml({
        info,
        naming,
        distribution: valueDistribution(info, files, numBins, naming),
        ldSection: info.metric === 'r2' && info.numWay === 2 ? renderLdSection(files, naming, info.numVector, recordedSelection(info)) : null,
        top: selectTopRecords(files, info.numWay, naming, { count: numTop, minValue: null, maxValue: null, entry: null, strongerValues: strongerRecordValues(info) }),
        version: packageVersion(),
      });
      writeFileAtomically(out, html);
      writeCommandOutput(`report ${out}\n`);
    });
}

/** Every value's histogram when the run recorded one, else the kept records' values. */
function valueDistribution(info: LoadedRunInfo, files: readonly string[], numBins: number, naming: SnpNaming): ValueDistribution {
  const selection = recordedSelection(info);
  const metric = { metric: info.metric, numWay: info.numWay };
  const recorded = recordedHistogram(info);
  if (recorded !== null) return recordedDistribution(recorded, selection, numBins, metric);
  const spanValues = entryThresholds(selection, info.numWay);
  return keptDistribution(entryHistograms(files, info.numWay, numBins, naming, { spanValues }), selection, metric);
}

function locateRunInfo(run: string): LoadedRunInfo {
  if (run.endsWith('.run.json')) return readRunInfo(run);
  if (existsSync(runInfoPathOf(run))) return readRunInfo(runInfoPathOf(run));
  const found = run.endsWith('.bin') ? findRunInfoFor(run) : null;
  if (found === null) {
    throw new UserError(`no run-info file for ${run} (expected ${runInfoPathOf(run)}; it is written by run --out)`);
  }
  return found;
}
