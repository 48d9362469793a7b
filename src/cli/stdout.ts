// Writing large output to stdout with back-pressure, ending quietly when the reader goes away; a command run in-process
// by another (the PLINK front end's snptally commands) writes its output to its caller instead (writeCommandOutput).
import { AsyncLocalStorage } from 'node:async_hooks';

/** The output of the in-process command whose async context this is (absent: stdout). */
const capturedOutput = new AsyncLocalStorage<string[]>();

/** A command's result text: to stdout, or to the caller that runs the command in-process (captureCommandOutput). */
export function writeCommandOutput(text: string): void {
  const captured = capturedOutput.getStore();
  if (captured === undefined) process.stdout.write(text);
  else captured.push(text);
}

/** Runs `command` with its writeCommandOutput text collected (async contexts keep concurrent commands apart). */
export async function captureCommandOutput(command: () => Promise<void>): Promise<string> {
  const captured: string[] = [];
  await capturedOutput.run(captured, command);
  return captured.join('');
}

/** Writes `text` and waits for the stream to drain when its buffer is full. */
export async function writeStdout(text: string): Promise<void> {
  if (process.stdout.write(text)) return;
  await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

let closedPipeHandled = false;

/**
 * Makes a closed pipe (`snptally dump … | head`) end the process with status 0 instead of an
 * EPIPE error: the reader has all it wanted.
 */
export function exitQuietlyOnClosedPipe(): void {
  // Once per process, however many command lines it runs (tests run many in one process).
  if (closedPipeHandled) return;
  closedPipeHandled = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

/** Waits until stdout and stderr have handed every byte written to the system (asynchronous pipes outside Linux). */
export async function stdioFlushed(): Promise<void> {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.writableLength > 0 && !stream.destroyed) await new Promise<void>((resolve) => stream.once('drain', resolve));
  }
}
