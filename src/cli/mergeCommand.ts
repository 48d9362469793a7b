// `snptally merge`: combines the per-rank metrics files of a run into one metrics file (records concatenated).
import { existsSync, rmSync } from 'node:fs';
import { Command, Option } from 'commander';
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import {
  commitStagedFiles, countMetricsRecords, MetricsFileWriter, readMetricsFileChunks, refuseOutputOverInput,
  removeLeftoverTemporariesOfFiles, type StagedFile,
} from '../io/index.js';
import { resolveMetricsInputs, sayAssumption } from './metricsInputs.js';
import { runInfoPathOf, stageRunInfo, type LoadedRunInfo } from './runInfoFile.js';
import { writeCommandOutput } from './stdout.js';

/** Adds the `merge` command to `program`. */
export function addMergeCommand(program: Command): void {
  program.command('merge')
    .summary('combine per-rank metrics files into one')
    .description(
      'concatenate the records of metrics files of one run into OUT (same record format, written under a temporary ' +
      'name then renamed); when the inputs have a <stub>.run.json, OUT gets one too (<OUT without .bin>.run.json) ' +
      'so that dump, top and report find the SNP names. Files of different runs, or a file given twice, are refused')
    .argument('<files...>', 'metrics files written by run --out')
    .requiredOption('--out <file>', 'merged metrics file; must end in .bin')
    .addOption(new Option('--way <n>', 'records are 2-way or 3-way (default: from <stub>.run.json, else 2)').choices(['2', '3']))
    .option('--force', 'overwrite an existing OUT and its run-info file', false)
    .action((files: string[], _options: unknown, command: Command) => {
      const options = command.opts();
      const out = String(options.out);
      if (!out.endsWith('.bin')) throw new UserError(`--out ${out} must end in .bin`);
      const outInfo = runInfoPathOf(out.slice(0, -'.bin'.length));
      const inputs = resolveMetricsInputs(files, options.way as string | undefined);
      const { numWay, info } = inputs;
      refuseOutputOverInput('merge', [out, outInfo], [...files, ...(info === null ? [] : [info.path])]);
      if (options.force !== true) {
        for (const path of [out, outInfo]) if (existsSync(path)) throw new UserError(`${path} exists already; use --force to overwrite`);
      } else {
        removeLeftoverTemporariesOfFiles([out, outInfo]);
      }
      if (info === null && files.every((file) => countMetricsRecords(file, numWay) === 0)) {
        throw new UserError('nothing to merge: the files hold no records and have no run-info file to say what run they are of');
      }
      const numRecords = mergeMetricsFiles(files, numWay, out, (written) => info === null ? [] : [stageMergedRunInfo(info, written, files)]);
      // --force over an earlier merge that had one: a run-info file must not describe records it was not written for.
      if (info === null) rmSync(outInfo, { force: true });
      writeCommandOutput(`merged ${files.length} files, ${numRecords} records, into ${out}\n`);
      sayAssumption(inputs);
    });
}

/** The run-info file of the merged file `out`: the run's, with `out` as its one file. */
function stageMergedRunInfo(info: LoadedRunInfo, out: string, files: readonly string[]): StagedFile {
  return stageRunInfo(out.slice(0, -'.bin'.length), {
    metric: info.metric, numWay: info.numWay, numVector: info.numVector, numField: info.numField,
    outputFiles: [out], sidecar: info.sidecarPath, input: info.input,
    run: { ...info.run, mergedFrom: files },
  });
}

/**
 * Writes the records of `files`, in order, to `out`; returns the number of records. `companions(out)` stages files
 * that go with it (its run-info file), renamed after it; when anything fails none of them is left.
 */
export function mergeMetricsFiles(
  files: readonly string[], numWay: NumWay, out: string, companions: (out: string) => StagedFile[] = () => [],
): number {
  const writer = MetricsFileWriter.create(out, numWay);
  try {
    for (const file of files) {
      for (const chunk of readMetricsFileChunks(file, numWay)) writer.appendRecordWords(chunk.words, chunk.numRecords);
    }
    writer.finish();
    commitStagedFiles([{ finalPath: out, temporaryPath: writer.temporaryPath }, ...companions(out)]);
  } finally {
    writer.discard();
  }
  return writer.numRecordsWritten;
}
