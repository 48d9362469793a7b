// `snptally dump`: prints the records of per-rank metrics files as tab-separated text, with SNP IDs when known.
import { Command, Option } from 'commander';
import type { NumWay } from '../core/types.js';
import { readMetricsFileChunks } from '../io/index.js';
import { formatNamedRecord, recordHeader } from './recordFormat.js';
import { resolveMetricsInputs, sayAssumption } from './metricsInputs.js';
import { SnpNaming } from './snpNaming.js';
import { writeStdout } from './stdout.js';

/** Adds the `dump` command to `program`. */
export function addDumpCommand(program: Command): void {
  program.command('dump')
    .summary('print metrics files as tab-separated text')
    .description(
      'print metrics files as TSV: i j [k] entry value (global vector indices, entry bits in ' +
      'coordinate order such as 01 or 110, the float32 value). With a sidecar (--sidecar, or found ' +
      'through <stub>.run.json beside the files) indices are SNP indices in input order, sorted, and ' +
      'SNP IDs follow them: i j [k] snp_i snp_j [snp_k] entry value')
    .argument('<files...>', 'metrics files written by run --out')
    .addOption(new Option('--way <n>', 'records are 2-way or 3-way (default: from <stub>.run.json, else 2)').choices(['2', '3']))
    .option('--sidecar <file>', 'sidecar of the prepared input (default: from <stub>.run.json)')
    .option('--header', 'print a first line naming the columns', false)
    .action(async (files: string[], _options: unknown, command: Command) => {
      const options = command.opts();
      const inputs = resolveMetricsInputs(files, options.way as string | undefined);
      const naming = SnpNaming.forRun(inputs.info, options.sidecar as string | undefined);
      await dumpFiles(files, inputs.numWay, options.header === true, naming);
      sayAssumption(inputs);
    });
}

/** Writes every record of `files`, in order, one line each. */
export async function dumpFiles(
  files: readonly string[], numWay: NumWay, header: boolean, naming: SnpNaming = SnpNaming.load(null),
): Promise<void> {
  if (header) await writeStdout(recordHeader(numWay, naming.hasNames));
  for (const file of files) {
    for (const chunk of readMetricsFileChunks(file, numWay)) {
      const lines: string[] = [];
      for (let r = 0; r < chunk.numRecords; r++) {
        lines.push(formatNamedRecord(naming.namedRecord(chunk.coords, r, numWay, chunk.values[r]), naming));
      }
      await writeStdout(lines.join(''));
    }
  }
}
