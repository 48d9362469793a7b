// `snptally merge`: combines the per-rank metrics files of a run into one metrics file (records concatenated).
import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { MetricsFileWriter, readMetricsFileChunks } from '../io/index.js';
import { wayOf } from './dumpCommand.js';
import { findRunInfoFor, writeRunInfo } from './runInfoFile.js';

/** Adds the `merge` command to `program`. */
export function addMergeCommand(program: Command): void {
  program.command('merge')
    .summary('combine per-rank metrics files into one')
    .description(
      'concatenate the records of metrics files into OUT (same record format, written under a temporary\n' +
      'name then renamed); when the inputs have a <stub>.run.json, OUT gets one too (<OUT without .bin>.run.json)\n' +
      'so that dump, top and report find the SNP names')
    .argument('<files...>', 'metrics files written by run --output')
    .requiredOption('--out <file>', 'merged metrics file; must end in .bin')
    .addOption(new Option('--way <n>', 'records are 2-way or 3-way (default: from <stub>.run.json, else 2)').choices(['2', '3']))
    .option('--force', 'overwrite an existing OUT', false)
    .action((files: string[], _options: unknown, command: Command) => {
      const options = command.opts();
      const out = String(options.out);
      if (!out.endsWith('.bin')) throw new UserError(`--out ${out} must end in .bin`);
      if (files.includes(out)) throw new UserError(`--out ${out} is one of the input files`);
      if (existsSync(out) && options.force !== true) throw new UserError(`${out} exists already; use --force to overwrite`);
      const numWay = wayOf(files, options.way as string | undefined);
      const numRecords = mergeMetricsFiles(files, numWay, out);
      const info = findRunInfoFor(files[0]);
      if (info !== null) {
        writeRunInfo(out.slice(0, -'.bin'.length), {
          metric: info.metric, numWay: info.numWay, numVector: info.numVector, numField: info.numField,
          outputFiles: [out], sidecar: info.sidecarPath, input: info.input,
          run: { ...info.run, mergedFrom: info.outputPaths },
        });
      }
      process.stdout.write(`merged ${files.length} files, ${numRecords} records, into ${out}\n`);
    });
}

/** Writes the records of `files`, in order, to `out`; returns the number of records. */
export function mergeMetricsFiles(files: readonly string[], numWay: NumWay, out: string): number {
  const writer = MetricsFileWriter.create(out, numWay);
  try {
    for (const file of files) {
      for (const chunk of readMetricsFileChunks(file, numWay)) writer.appendRecordWords(chunk.words, chunk.numRecords);
    }
    writer.finish();
    writer.commit();
  } catch (error) {
    writer.discard();
    throw error;
  }
  return writer.numRecordsWritten;
}
