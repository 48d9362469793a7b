// The PLINK front end's translated commands: each runs as `snptally <args>` in this process (commandLine.ts
// runSubcommand), so a front-end command pays for one Node start and module load, not one per command it runs.
import { UserError } from '../../core/errors.js';

/** Runs `snptally <args>`; resolves with its output. @throws UserError naming the command with its one-line message. */
export async function runSnptally(args: readonly string[]): Promise<string> {
  // Loaded on use: commandLine.ts registers the front end, which would otherwise import it back.
  const { runSubcommand } = await import('../commandLine.js');
  try {
    return await runSubcommand(args);
  } catch (error) {
    if (error instanceof UserError) throw new UserError(`${args[0]}: ${error.message}`);
    throw error;
  }
}
