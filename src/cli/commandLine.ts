// The `snptally` command line: parses it, runs a subcommand, turns every failure into one line and an exit status.
import { Command, CommanderError } from 'commander';
import { detectMpiLaunch } from '../parallel/index.js';
import { ReportedUserError, UserError } from '../core/errors.js';
import { HELP_STYLE } from './helpStyle.js';
import { packageVersion } from './packageVersion.js';
import { captureCommandOutput, exitQuietlyOnClosedPipe } from './stdout.js';

/** Exit status of a problem with the user's input or options (also commander's usage errors). */
const EXIT_USER_ERROR = 1;
/** Exit status of anything else: a bug or an environment failure. */
const EXIT_INTERNAL_ERROR = 2;

/**
 * Under mpirun every process parses the same command line and meets the same option errors: only world
 * rank 0 reports them. (A rank's own failure during a run is reported by that rank: see mpiRun.)
 */
const reportsUserErrors = (detectMpiLaunch()?.worldRank ?? 0) === 0;

/** Where commander's own messages (usage errors) go. */
type CommanderMessages = (message: string) => void;

/** A subcommand: its name, and how its module (with everything it runs) is loaded and adds it to the program. */
interface Subcommand {
  readonly name: string;
  readonly load: () => Promise<(program: Command) => void>;
}

/** The subcommands in the order help lists them; each module is loaded only when the command line may need it. */
const SUBCOMMANDS: readonly Subcommand[] = [
  { name: 'run', load: async () => (await import('./runCommand.js')).addRunCommand },
  { name: 'dump', load: async () => (await import('./dumpCommand.js')).addDumpCommand },
  { name: 'prepare', load: async () => (await import('./prepareCommand.js')).addPrepareCommand },
  { name: 'top', load: async () => (await import('./topCommand.js')).addTopCommand },
  { name: 'merge', load: async () => (await import('./mergeCommand.js')).addMergeCommand },
  { name: 'report', load: async () => (await import('./reportCommand.js')).addReportCommand },
  { name: 'plink', load: async () => (await import('./plink/plinkCommand.js')).addPlinkCommand },
  { name: 'epistasis', load: async () => (await import('./epistasis/epistasisCommand.js')).addEpistasisCommand },
];

/**
 * The subcommands `args` (the arguments after the script) can run: the one it names first, none for a bare
 * `--version`, and every one otherwise (help, an unknown or missing command: commander lists or suggests them).
 */
function subcommandsFor(args: readonly string[]): readonly Subcommand[] {
  const named = SUBCOMMANDS.find((c) => c.name === args[0]);
  if (named !== undefined) return [named];
  return args.length === 1 && args[0] === '--version' ? [] : SUBCOMMANDS;
}

async function buildProgram(args: readonly string[], reportMessage: CommanderMessages = reportToStderr): Promise<Command> {
  const program = new Command('snptally')
    .description('exact 2-way and 3-way CCC and DUO metrics between SNP vectors, CoMet-compatible')
    .version(packageVersion(), '--version', 'print the version')
    .helpOption('-h, --help', 'print help')
    .configureHelp(HELP_STYLE)
    // Settings made before .command() are inherited by the subcommands.
    .exitOverride()
    .configureOutput({ outputError: (message) => reportMessage(message.replace(/^error: /, '').trim()) });
  const adders = await Promise.all(subcommandsFor(args).map((c) => c.load()));
  for (const add of adders) add(program);
  return program;
}

function reportToStderr(message: string): void {
  if (reportsUserErrors) process.stderr.write(`snptally: ${message}\n`);
}

/**
 * Runs `snptally <args>` in this process, as the PLINK front end runs the commands it translates to (no second Node
 * start, module load and exit per command): resolves with what the command printed (its --json line), or rejects with
 * its failure — a UserError carrying commander's message for a usage error.
 */
export async function runSubcommand(args: readonly string[]): Promise<string> {
  let usageMessage = '';
  const program = await buildProgram(args, (message) => { usageMessage = message; });
  try {
    return await captureCommandOutput(async () => { await program.parseAsync(['node', 'snptally', ...args]); });
  } catch (error) {
    if (error instanceof CommanderError) throw new UserError(usageMessage || error.message);
    throw error;
  }
}

/**
 * Runs the command line `argv` (as process.argv: node, script, arguments) and returns the exit status: 0, 1 for a
 * problem with the input or options, 2 for anything else; each failure is one line on stderr. The fuzz test calls
 * this in-process; `main.js` calls it once and exits with its status.
 */
export async function runCommandLine(argv: readonly string[]): Promise<number> {
  exitQuietlyOnClosedPipe();
  try {
    const program = await buildProgram(argv.slice(2));
    await program.parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message (or the help/version text) already.
      return error.exitCode === 0 ? 0 : EXIT_USER_ERROR;
    }
    if (error instanceof ReportedUserError) return EXIT_USER_ERROR;
    if (error instanceof UserError) {
      // One line even when the message quotes a damaged file's bytes.
      if (reportsUserErrors) process.stderr.write(`snptally: ${oneLine(error.message)}\n`);
      return EXIT_USER_ERROR;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`snptally: internal error: ${oneLine(message)}\n`);
    if (process.env.SNPTALLY_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return EXIT_INTERNAL_ERROR;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

