// Wall time of a whole process, the way the benchmarks that compare snptally with another program time both.
import { spawnSync } from 'node:child_process';

/** Wall seconds of a command that must succeed, and its stdout. */
export function timedProcess(command: string, args: readonly string[]): { seconds: number; stdout: string } {
  const start = performance.now();
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  const seconds = (performance.now() - start) / 1000;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout.slice(-2000)}`);
  return { seconds, stdout: r.stdout };
}

/** The best wall seconds of `reps` runs of a command that must succeed. */
export function bestProcessSeconds(command: string, args: readonly string[], reps: number): number {
  return fastestOf(reps, () => timedProcess(command, args)).seconds;
}

/** The fastest of `reps` runs of `runOnce` (a timedProcess call), with its stdout. */
export function fastestOf(reps: number, runOnce: () => { seconds: number; stdout: string }): { seconds: number; stdout: string } {
  let fastest = runOnce();
  for (let rep = 1; rep < reps; rep++) {
    const next = runOnce();
    if (next.seconds < fastest.seconds) fastest = next;
  }
  return fastest;
}
