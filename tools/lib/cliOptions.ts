// The command line of every tool in tools/: a commander program set up as snptally's own (src/cli/main.ts),
// option values read while parsing (so a bad value stops a tool before it opens a GPU or starts mpirun),
// and every usage error one line `<tool>: <problem>` with exit status 1.
//
// One way per kind of option: a value through `valueOption` with a parser (numbers: src/cli's, re-exported
// here; comma-separated lists: `listOf`; list items from a fixed set: `choiceOf`); a single value from a fixed
// set through commander's `.choices()`, as src/cli does; a flag through `.option()` with default false.
import { Command, CommanderError, Option, type OptionValues } from 'commander';
import { UserError } from '../../src/core/errors.js';
import { parseNonNegativeNumber } from '../../src/cli/index.js';

export {
  parseFiniteNumber, parseNonNegativeInteger, parseNonNegativeNumber, parsePositiveInteger,
} from '../../src/cli/index.js';

/** Reads the text of `option`; throws UserError naming the option when the text is not a valid value. */
export type OptionTextParser<T> = (option: string, text: string) => T;

/** Exit status of a bad command line, as snptally's (src/cli/main.ts). */
const EXIT_USAGE_ERROR = 1;

/** A program named after the tool's file (`name` prefixes its error lines); add its options, then parse. */
export function createToolProgram(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .helpOption('-h, --help', 'print help')
    .exitOverride()
    .configureOutput({
      outputError: (message, write) => write(`${name}: ${message.replace(/^error: /, '').trim()}\n`),
    });
}

/**
 * Parses `argv` (laid out as process.argv) and returns the option values, typed as the tool declares them.
 * Ends the process after `--help` (status 0) and on an unknown option, a missing or bad value, or a stray
 * argument (status 1, one line on stderr): a tool never starts with options it did not understand.
 */
export function parseToolOptions<T extends OptionValues>(program: Command, argv: readonly string[] = process.argv): T {
  try {
    program.parse([...argv]);
  } catch (error) {
    // Commander has printed its help or its one-line message already.
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE_ERROR);
    if (error instanceof UserError) {
      process.stderr.write(`${program.name()}: ${error.message}\n`);
      process.exit(EXIT_USAGE_ERROR);
    }
    throw error;
  }
  return program.opts<T>();
}

/**
 * An option taking a value, read by `parseText` when it is given. `defaultText` is the default as one would
 * type it: it goes through the same parser and is shown as typed in the help. Without one, the option's
 * description says what its absence means.
 */
export function valueOption<T>(
  flags: string, description: string, parseText: OptionTextParser<T>, defaultText?: string,
): Option {
  const option = new Option(flags, description);
  const name = option.long ?? flags;
  option.argParser((text: string): T => parseText(name, text));
  if (defaultText !== undefined) option.default(parseText(name, defaultText), defaultText);
  return option;
}

/** A comma-separated list, each item read by `parseItem` (so an empty item is an error of that item). */
export function listOf<T>(parseItem: OptionTextParser<T>): OptionTextParser<T[]> {
  return (option, text) => text.split(',').map((item) => parseItem(option, item));
}

/** A number from 0 to 1 (a rate, a fraction). */
export function parseFraction(option: string, text: string): number {
  const value = parseNonNegativeNumber(option, text);
  if (value > 1) throw new UserError(`${option} must be at most 1, got "${text}"`);
  return value;
}

/** One of `choices`, exactly as written. */
export function choiceOf<T extends string>(choices: readonly T[]): OptionTextParser<T> {
  return (option, text) => {
    const found = choices.find((choice) => choice === text);
    if (found === undefined) throw new UserError(`${option} must be one of ${choices.join(', ')}, got "${text}"`);
    return found;
  };
}
