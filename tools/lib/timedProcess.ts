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
  let best = Infinity;
  for (let rep = 0; rep < reps; rep++) best = Math.min(best, timedProcess(command, args).seconds);
  return best;
}
