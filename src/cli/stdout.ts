// Writing large output to stdout with back-pressure, ending quietly when the reader goes away.

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
