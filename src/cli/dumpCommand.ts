// `snptally dump`: prints the records of a run's metrics files as one table — snptally's records, a TSV with loci, or
// PLINK's .ld — sorted by position (default), by value, or in file order; to stdout or a (gzip) file.
import { Command, Option } from 'commander';
import type { NumWay } from '../core/types.js';
import type { TextOutput } from '../io/index.js';
import { resolveMetricsInputs, sayAssumption } from './metricsInputs.js';
import { strongerRecordValues } from './runInfoFile.js';
import type { TableFormat, TableOrder } from './recordTable.js';
import { writeRecordTable } from './recordTableWriter.js';
import { SnpNaming } from './snpNaming.js';
import { addTableOptions, readTableOptions, withTableOutput } from './tableOptions.js';

/** Adds the `dump` command to `program`. */
export function addDumpCommand(program: Command): void {
  const command = program.command('dump')
    .summary('print metrics files as one table (records, tsv or PLINK .ld), sorted')
    .description(
      'print every record of metrics files as one table, with a header line (as top prints it; --no-header omits ' +
      'it). The default format, records, is tab-separated i j [k] entry value (vector indices, entry bits in ' +
      'coordinate order such as 01 or 110, the float32 value); with a sidecar (--sidecar, or found through ' +
      '<stub>.run.json beside the files) the indices are SNP indices in input order and SNP IDs follow them: ' +
      'i j [k] snp_i snp_j [snp_k] entry value. Rows are sorted by position unless --sort says otherwise; sorting ' +
      'holds at most a few million records in memory and spills the rest to sorted scratch files under $TMPDIR')
    .argument('<files...>', 'metrics files written by run --out')
    .addOption(new Option('--way <n>', 'records are 2-, 3- or 4-way (default: from <stub>.run.json, else 2)').choices(['2', '3', '4']))
    .option('--sidecar <file>', 'sidecar of the prepared input (default: from <stub>.run.json)');
  addTableOptions(command, ['position', 'value', 'file'])
    .action(async (files: string[], _options: unknown, action: Command) => {
      const values = action.opts();
      const table = readTableOptions(values);
      const inputs = resolveMetricsInputs(files, values.way as string | undefined);
      const naming = SnpNaming.forRun(inputs.info, values.sidecar as string | undefined);
      await withTableOutput(table, files, async (output, scratchDirectory) => {
        await dumpFiles(files, inputs.numWay, naming, output, {
          format: table.format, order: table.order, header: table.header, metric: inputs.info?.metric ?? null,
          strongerValues: strongerRecordValues(inputs.info), scratchDirectory,
        });
      });
      sayAssumption(inputs);
    });
}

/** How `dumpFiles` prints. */
export interface DumpOptions {
  readonly format: TableFormat;
  readonly order: TableOrder;
  readonly header: boolean;
  /** The run's metric, or null when unknown. */
  readonly metric: string | null;
  /** Which values are the stronger (default larger): `--sort value` puts them first. */
  readonly strongerValues?: 'larger' | 'smaller';
  /** Where the sort's scratch runs go (default: the OS's temporary directory). */
  readonly scratchDirectory?: string;
  /** Rows sorted in memory at once (tests make it small). */
  readonly rowsPerChunk?: number;
}

/** Writes every record of `files` as one table to `output`; returns the number of records. */
export async function dumpFiles(
  files: readonly string[], numWay: NumWay, naming: SnpNaming, output: TextOutput, options: DumpOptions,
): Promise<number> {
  return writeRecordTable(files, {
    format: options.format, numWay, metric: options.metric, strongerValues: options.strongerValues ?? 'larger', naming,
  }, output, {
    order: options.order, header: options.header, rowsPerChunk: options.rowsPerChunk, scratchParent: options.scratchDirectory,
  });
}
