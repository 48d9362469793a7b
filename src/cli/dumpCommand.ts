// `snptally dump`: prints the records of per-rank metrics files as tab-separated text.
import { Command, Option } from 'commander';
import type { NumWay } from '../core/types.js';
import { coordEntryBit, coordVectorIndex, readMetricsFileChunks } from '../io/index.js';
import { formatFloat32 } from './formatFloat32.js';
import { writeStdout } from './stdout.js';

/** Adds the `dump` command to `program`. */
export function addDumpCommand(program: Command): void {
  program.command('dump')
    .summary('print metrics files as tab-separated text')
    .description(
      'print metrics files as TSV: i j [k] entry value (global vector indices, entry bits in\n' +
      'coordinate order such as 01 or 110, the float32 value)')
    .argument('<files...>', 'metrics files written by run --output')
    .addOption(new Option('--way <n>', 'records of the files are 2-way or 3-way').choices(['2', '3']).default('2'))
    .option('--header', 'print a first line naming the columns', false)
    .action(async (files: string[], _options: unknown, command: Command) => {
      const options = command.opts();
      await dumpFiles(files, options.way === '3' ? 3 : 2, options.header === true);
    });
}

/** Writes every record of `files`, in order, one line each. */
export async function dumpFiles(files: readonly string[], numWay: NumWay, header: boolean): Promise<void> {
  if (header) await writeStdout(`${numWay === 2 ? 'i\tj' : 'i\tj\tk'}\tentry\tvalue\n`);
  for (const file of files) {
    for (const chunk of readMetricsFileChunks(file, numWay)) {
      const lines: string[] = [];
      for (let r = 0; r < chunk.numRecords; r++) {
        let indices = '';
        let entry = '';
        for (let w = 0; w < numWay; w++) {
          const coord = chunk.coords[r * numWay + w];
          indices += `${coordVectorIndex(coord)}\t`;
          entry += coordEntryBit(coord);
        }
        lines.push(`${indices}${entry}\t${formatFloat32(chunk.values[r])}\n`);
      }
      await writeStdout(lines.join(''));
    }
  }
}
