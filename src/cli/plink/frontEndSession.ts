// The frame every `snptally plink` command runs in (--r2, --make-king, --distance, --make-rel, --fast-epistasis):
// existing outputs refused without --force, a scratch directory beside them so that finished files are renamed into
// place, the snptally commands it runs (its log lists them), and the staged files committed together at the end —
// or removed, with the scratch directory, when the command fails or is interrupted.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import { commitStagedFiles, type StagedFile } from '../../io/index.js';
import { cleanUpOnInterrupt, forgetScratchDirectory } from '../interruptCleanup.js';
import { packageVersion } from '../packageVersion.js';
import { runSnptally } from './translatedCommand.js';

/** What a front-end command writes: its output prefix, every final path, and whether they may be replaced. */
export interface FrontEndOutputs {
  readonly out: string;
  readonly paths: readonly string[];
  readonly force: boolean;
}

/** A running front-end command. */
export interface FrontEndSession {
  /** Scratch directory beside the outputs (removed at the end). */
  readonly scratch: string;
  readonly started: Date;
  /** The snptally commands run so far, for the log. */
  readonly commands: readonly (readonly string[])[];
  /** Files renamed into place together when the command succeeds. */
  readonly staged: StagedFile[];
  /** Runs `snptally <args>` (in this process) and records it; resolves with its stdout. */
  run(args: readonly string[]): Promise<string>;
}

/**
 * Runs `body` in a front-end session; `body` stages every output (its log too) and returns the log's text, which is
 * printed once the staged files are in place.
 * @throws UserError naming an existing output when `force` is off.
 */
export async function runFrontEndCommand(outputs: FrontEndOutputs, body: (session: FrontEndSession) => Promise<string>): Promise<void> {
  for (const path of outputs.paths) {
    if (!outputs.force && existsSync(path)) throw new UserError(`plink: ${path} exists: give --force to replace it`);
  }
  const started = new Date();
  cleanUpOnInterrupt({ outputPrefixes: outputs.paths.map((path) => `${path}.`) });
  const scratch = mkdtempSync(join(dirname(resolve(outputs.out)), '.snptally-plink-'));
  cleanUpOnInterrupt({ scratchDirectory: scratch });
  const commands: string[][] = [];
  const staged: StagedFile[] = [];
  const run = (args: readonly string[]): Promise<string> => {
    commands.push([...args]);
    return runSnptally(args);
  };
  try {
    const log = await body({ scratch, started, commands, staged, run });
    commitStagedFiles(staged);
    staged.length = 0;
    process.stdout.write(log);
  } finally {
    for (const file of staged) rmSync(file.temporaryPath, { force: true });
    rmSync(scratch, { recursive: true, force: true });
    forgetScratchDirectory(scratch);
  }
}

/** The first lines of a front end's log, PLINK's shape: who wrote it, the options in effect, start, the commands run. */
export function logHeaderLines(
  frontEnd: 'PLINK 1.9 front end' | 'PLINK 2 front end', optionsInEffect: readonly string[], session: Pick<FrontEndSession, 'started' | 'commands'>,
): string[] {
  const quote = (arg: string): string => (/^[\w./,:=+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`);
  return [
    `snptally ${packageVersion()} (${frontEnd})`,
    'Options in effect:',
    ...optionsInEffect.map((option) => `  ${option}`),
    '',
    `Start time: ${session.started.toString()}`,
    'snptally commands (in a scratch directory beside the output):',
    ...session.commands.map((command) => `  snptally ${command.map(quote).join(' ')}`),
  ];
}
