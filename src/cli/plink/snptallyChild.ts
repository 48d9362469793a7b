// The PLINK front end's translated commands: each runs as `snptally <args>` in a child process.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../core/errors.js';

/** snptally's own entry point, run for each translated command. */
const CLI_MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../main.js');

/** Runs `snptally <args>` as a child process; returns its stdout. @throws UserError with the child's one-line message. */
export async function runSnptally(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stopChild = (): void => { child.kill('SIGTERM'); };
  process.once('exit', stopChild);
  const [stdout, stderr] = [[] as Buffer[], [] as Buffer[]];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const status = await new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done(code));
  });
  process.removeListener('exit', stopChild);
  if (status !== 0) {
    const message = Buffer.concat(stderr).toString('utf8').trim().split('\n').at(-1)?.replace(/^snptally: /, '') ?? '';
    if (status === 1) throw new UserError(`${args[0]}: ${message}`);
    throw new Error(`snptally ${args[0]} ended with status ${status}: ${message}`);
  }
  return Buffer.concat(stdout).toString('utf8');
}

