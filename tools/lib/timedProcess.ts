// Wall time of a whole process, the way the benchmarks that compare snptally with another program time both.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Wall seconds of a command that must succeed, its CPU seconds (user + system, Linux; else null), and its stdout. */
export function timedProcess(command: string, args: readonly string[]): { seconds: number; cpuSeconds: number | null; stdout: string } {
  const cpuBefore = childCpuSeconds();
  const start = performance.now();
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = childCpuSeconds();
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout.slice(-2000)}`);
  return { seconds, cpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, stdout: r.stdout };
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * User + system seconds of this process's waited-for children (cutime + cstime of /proc/self/stat): on a machine shared
 * with other jobs, a process's CPU seconds vary less than its wall time. Null where /proc is missing.
 */
function childCpuSeconds(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  // Fields after the command name (which may hold spaces) start at its closing parenthesis; cutime and cstime are 16, 17.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / USER_HZ;
}

/** The best wall seconds of `reps` runs of a command that must succeed. */
export function bestProcessSeconds(command: string, args: readonly string[], reps: number): number {
  return fastestOf(reps, () => timedProcess(command, args)).seconds;
}

/** The fastest of `reps` runs of `runOnce` (a timedProcess call), with its stdout. */
export function fastestOf<T extends { seconds: number; stdout: string }>(reps: number, runOnce: () => T): T {
  let fastest = runOnce();
  for (let rep = 1; rep < reps; rep++) {
    const next = runOnce();
    if (next.seconds < fastest.seconds) fastest = next;
  }
  return fastest;
}
