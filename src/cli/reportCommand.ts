// `snptally report`: writes a self-contained HTML summary of a run (histograms, strongest tuples, parameters).
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { UserError } from '../core/errors.js';
import { systemErrorText, temporaryPathFor } from '../io/index.js';
import { entryHistograms } from './entryHistograms.js';
import { parsePositiveInteger } from './numberOptions.js';
import { packageVersion } from './packageVersion.js';
import { renderReportHtml } from './reportHtml.js';
import { findRunInfoFor, readRunInfo, runInfoPathOf, type LoadedRunInfo } from './runInfoFile.js';
import { SnpNaming } from './snpNaming.js';
import { selectTopRecords } from './topRecords.js';

/** Adds the `report` command to `program`. */
export function addReportCommand(program: Command): void {
  program.command('report')
    .summary('write an HTML summary of a run')
    .description(
      'write a self-contained HTML page (inline SVG, no scripts) summarising a run written with\n' +
      'run --output STUB: histograms of values per table entry, the strongest pairs or triples with SNP\n' +
      'names, run parameters and throughput. RUN is STUB, STUB.run.json or one of the metrics files')
    .argument('<run>', 'STUB, STUB.run.json, or a metrics file of the run (or of merge)')
    .requiredOption('--out <file>', 'HTML file to write')
    .option('--top <n>', 'strongest tuples listed', '25')
    .option('--bins <n>', 'histogram bins', '40')
    .action((run: string, _options: unknown, command: Command) => {
      const options = command.opts();
      const info = locateRunInfo(run);
      const naming = SnpNaming.load(info.sidecarPath);
      const files = info.outputPaths;
      if (files.length === 0) throw new UserError(`${info.path}: the run wrote no metrics files`);
      const html = renderReportHtml({
        info,
        naming,
        histograms: entryHistograms(files, info.numWay, parsePositiveInteger('--bins', String(options.bins)), naming),
        top: selectTopRecords(files, info.numWay, naming, {
          count: parsePositiveInteger('--top', String(options.top)), minValue: null, maxValue: null, entry: null,
        }),
        version: packageVersion(),
      });
      writeTextAtomically(String(options.out), html);
      process.stdout.write(`report ${String(options.out)}\n`);
    });
}

function locateRunInfo(run: string): LoadedRunInfo {
  if (run.endsWith('.run.json')) return readRunInfo(run);
  if (existsSync(runInfoPathOf(run))) return readRunInfo(runInfoPathOf(run));
  const found = run.endsWith('.bin') ? findRunInfoFor(run) : null;
  if (found === null) {
    throw new UserError(`no run-info file for ${run} (expected ${runInfoPathOf(run)}; it is written by run --output)`);
  }
  return found;
}

function writeTextAtomically(path: string, text: string): void {
  const temporary = temporaryPathFor(path);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new UserError(`cannot write ${path}: ${systemErrorText(error)}`);
  }
}
