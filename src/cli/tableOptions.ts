// The table options `dump` and `top` share: --format, --sort, --out (gzip when it ends in .gz), --force, --no-header.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { UserError } from '../core/errors.js';
import { refuseOutputOverInput, TextOutput } from '../io/index.js';
import { cleanUpOnInterrupt, forgetScratchDirectory } from './interruptCleanup.js';
import { TABLE_FORMATS, TABLE_ORDERS, type TableFormat, type TableOrder } from './recordTable.js';

/** The table options as parsed. */
export interface TableOptionValues {
  readonly format: TableFormat;
  readonly order: TableOrder;
  readonly header: boolean;
  readonly outPath: string | null;
  readonly force: boolean;
}

/** Adds the shared table options; `orders` are those the command offers, the first its default. */
export function addTableOptions(command: Command, orders: readonly TableOrder[]): Command {
  return command
    .addOption(new Option('--format <format>',
      'records: i j [k] [snp_i snp_j [snp_k]] entry value; tsv: CHR_A BP_A SNP_A … ENTRY <METRIC>, every way and ' +
      'metric; ld: PLINK 1.9\'s .ld table of r² (CHR_A BP_A SNP_A CHR_B BP_B SNP_B R2, PLINK\'s spacing and digits)')
      .choices([...TABLE_FORMATS]).default('records'))
    .addOption(new Option('--sort <order>',
      'position: by chromosome (in input order), bp, then the next SNP of the tuple; value: strongest first, ties by ' +
      'SNP indices' + (orders.includes('file') ? '; file: as the files hold them (streams, no sorting)' : ''))
      .choices([...orders]).default(orders[0]))
    .option('--out <file>', 'write the table to this file (gzip-compressed when the name ends in .gz) instead of stdout')
    .option('--force', 'replace an existing --out file', false)
    .option('--header', 'print the line naming the columns (the default)')
    .option('--no-header', 'omit the line naming the columns');
}

/** Picks the table options out of commander's record. */
export function readTableOptions(values: Record<string, unknown>): TableOptionValues {
  const format = TABLE_FORMATS.find((name) => name === values.format) ?? 'records';
  const order = TABLE_ORDERS.find((name) => name === values.sort) ?? 'position';
  const outPath = typeof values.out === 'string' ? values.out : null;
  if (outPath === '') throw new UserError('--out must not be empty');
  if (outPath === null && values.force === true) throw new UserError('--force applies to --out only');
  return { format, order, header: values.header !== false, outPath, force: values.force === true };
}

/**
 * Runs `write` with the table's output (stdout or the --out file, committed when `write` succeeds, removed when it
 * fails or is interrupted) and a scratch directory for the sort (removed afterwards).
 */
export async function withTableOutput(
  options: TableOptionValues, inputs: readonly string[],
  write: (output: TextOutput, scratchDirectory: string) => Promise<void>,
): Promise<void> {
  if (options.outPath !== null) {
    refuseOutputOverInput('the table', [options.outPath], inputs);
    cleanUpOnInterrupt({ outputPrefixes: [`${options.outPath}.`] });
  }
  const output = options.outPath === null ? TextOutput.toStdout() : await TextOutput.toFile(options.outPath, { force: options.force });
  const scratchDirectory = mkdtempSync(join(tmpdir(), 'snptally-table-'));
  cleanUpOnInterrupt({ scratchDirectory });
  try {
    await write(output, scratchDirectory);
    await output.commit();
  } catch (error) {
    output.discard();
    throw error;
  } finally {
    rmSync(scratchDirectory, { recursive: true, force: true });
    forgetScratchDirectory(scratchDirectory);
  }
}
