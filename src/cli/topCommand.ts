// `snptally top`: the strongest pairs or triples of a run, sorted by value, filtered, with SNP IDs.
import { Command, Option } from 'commander';
import { UserError } from '../core/errors.js';
import { parseCount, parseFiniteNumber } from './numberOptions.js';
import { resolveMetricsInputs, sayAssumption } from './metricsInputs.js';
import { sortByPosition, TableLayout } from './recordTable.js';
import { strongerRecordValues } from './runInfoFile.js';
import { SnpNaming } from './snpNaming.js';
import { addTableOptions, readTableOptions, withTableOutput } from './tableOptions.js';
import { MAX_TOP_COUNT, selectTopRecords } from './topRecords.js';

/** Adds the `top` command to `program`. */
export function addTopCommand(program: Command): void {
  const command = program.command('top')
    .summary('print the k strongest records of metrics files, sorted, with SNP IDs')
    .description(
      'print the k records of strongest value (the largest; the smallest for epistasis K2 records; ties: by SNP indices) as dump prints them (the same formats, header ' +
      'and --out), optionally only values in [--min, --max] and one table entry; SNP IDs come from the sidecar; ' +
      'strongest first unless --sort position')
    .argument('<files...>', 'metrics files written by run --out (or merge)')
    .option('-k, --count <n>', `number of records (at most ${MAX_TOP_COUNT}); 0 prints all that pass the filters (sorted; at most as many)`, '20')
    .option('--min <value>', 'keep values ≥ this')
    .option('--max <value>', 'keep values ≤ this')
    .option('--entry <bits>', 'keep only this table entry, e.g. 11 (bits in SNP order)')
    .addOption(new Option('--way <n>', 'records are 2-way or 3-way (default: from <stub>.run.json, else 2)').choices(['2', '3']))
    .option('--sidecar <file>', 'sidecar of the prepared input (default: from <stub>.run.json)');
  addTableOptions(command, ['value', 'position'])
    .action(async (files: string[], _options: unknown, action: Command) => {
      const options = action.opts();
      const table = readTableOptions(options);
      const inputs = resolveMetricsInputs(files, options.way as string | undefined);
      const { numWay, info } = inputs;
      const entry = typeof options.entry === 'string' ? options.entry : null;
      if (entry !== null && !new RegExp(`^[01]{${numWay}}$`).test(entry)) {
        throw new UserError(`--entry must be ${numWay} bits of 0 and 1, got "${entry}"`);
      }
      const naming = SnpNaming.forRun(info, options.sidecar as string | undefined);
      const records = selectTopRecords(files, numWay, naming, {
        count: parseCount('--count', String(options.count), { most: MAX_TOP_COUNT }),
        minValue: typeof options.min === 'string' ? parseFiniteNumber('--min', options.min) : null,
        maxValue: typeof options.max === 'string' ? parseFiniteNumber('--max', options.max) : null,
        entry,
        strongerValues: strongerRecordValues(info),
      });
      const layout = TableLayout.of({ format: table.format, numWay, metric: info?.metric ?? null, strongerValues: strongerRecordValues(info), naming });
      const shown = table.order === 'position' ? sortByPosition(records, naming.preparedSidecar) : records;
      await withTableOutput(table, files, async (output) => {
        if (table.header) await output.write(layout.header());
        await output.write(shown.map((record) => layout.line(record)).join(''));
      });
      sayAssumption(inputs);
    });
}

