// Runs a peer program (plink1.9, plink2) for an agreement test; a failure throws with its command line and output.
import { spawnSync } from 'node:child_process';

export function runPeer(program: string, args: readonly string[]): void {
  const r = spawnSync(program, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
}
