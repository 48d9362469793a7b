// An interrupted `snptally run` / `prepare` removes its unfinished outputs (and a converted input) and ends by the
// signal it got: src/cli/interruptCleanup.ts.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_MAIN } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-interrupt-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface Interrupted {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/**
 * Starts the CLI, waits until `started()` holds (polling), sends `signal` and returns how the process ended.
 * Fails if the process ends on its own first: the runs below take seconds, the wait a fraction of one.
 */
async function interruptWhen(
  args: readonly string[], started: () => boolean, signal: NodeJS.Signals, env: Record<string, string> = {},
): Promise<Interrupted> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { env: { ...process.env, SNPTALLY_DEBUG: '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => { stderr += text; });
  const ended = new Promise<Interrupted>((resolve) => child.on('close', (code, endSignal) => resolve({ code, signal: endSignal, stderr })));
  let finishedEarly = false;
  void ended.then(() => { finishedEarly = true; });
  const deadline = Date.now() + 60_000;
  while (!started()) {
    if (finishedEarly) throw new Error(`the command ended before it could be interrupted: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the command did not start its output within 60 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  child.kill(signal);
  return ended;
}

const temporaryFilesIn = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.tmp'));

describe('interrupted commands', () => {
  for (const [name, extra] of [['one rank', []], ['two in-process ranks', ['--ranks', '2', '--npv', '2']]] as const) {
    it(`run (${name}) on SIGINT: its rank files are removed and it ends by SIGINT`, async () => {
      const dir = mkdtempSync(join(workDir, 'run-'));
      const stub = join(dir, 'out');
      const args = ['run', '--vectors', '16000', '--fields', '20000', '--threshold', '0.9', '--output', stub, ...extra];
      const files = extra.length === 0 ? 1 : 2;
      // Interrupted once every rank has opened its file (ranks open theirs when their own setup is done, not together).
      const outcome = await interruptWhen(args, () => temporaryFilesIn(dir).length >= files, 'SIGINT');
      expect(outcome.signal).toBe('SIGINT');
      expect(outcome.stderr).toContain(`snptally: interrupted (SIGINT); removed ${files} unfinished output file(s)`);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('run of a VCF on SIGTERM: the converted input and the outputs are removed', async () => {
    const samples = 2000;
    const lines = ['##fileformat=VCFv4.2', `#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t${Array.from({ length: samples }, (_, s) => `s${s}`).join('\t')}`];
    const calls = ['0/0', '0/1', '1/1', './.'];
    for (let v = 0; v < 700; v++) {
      const row = Array.from({ length: samples }, (_, s) => calls[(v * 7 + s * 13 + ((v * s) % 5)) % 4]);
      lines.push(`1\t${v + 1}\trs${v}\tA\tG\t.\tPASS\t.\tGT\t${row.join('\t')}`);
    }
    const vcf = join(workDir, 'calls.vcf');
    writeFileSync(vcf, `${lines.join('\n')}\n`);
    const dir = mkdtempSync(join(workDir, 'vcf-run-'));
    const scratch = mkdtempSync(join(workDir, 'scratch-'));
    const args = ['run', '--input', vcf, '--sparse', '--way', '3', '--threads', '1', '--threshold', '0.9', '--output', join(dir, 'out')];
    const outcome = await interruptWhen(args, () => temporaryFilesIn(dir).length > 0, 'SIGTERM', { TMPDIR: scratch });
    expect(outcome.signal).toBe('SIGTERM');
    expect(outcome.stderr).toContain('snptally: interrupted (SIGTERM); removed 1 unfinished output file(s) and the converted input');
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('a finished run is not touched by a later interrupted one', async () => {
    const dir = mkdtempSync(join(workDir, 'kept-'));
    const done = await interruptWhen(['run', '--vectors', '100', '--fields', '200', '--output', join(dir, 'a')], () => false, 'SIGINT').catch((e: Error) => e);
    // The small run ends by itself before it can be interrupted.
    expect(done).toBeInstanceOf(Error);
    expect(existsSync(join(dir, 'a_0.bin'))).toBe(true);
    const outcome = await interruptWhen(
      ['run', '--vectors', '16000', '--fields', '20000', '--threshold', '0.9', '--output', join(dir, 'b')],
      () => temporaryFilesIn(dir).length > 0, 'SIGINT');
    expect(outcome.signal).toBe('SIGINT');
    expect(readdirSync(dir).sort()).toEqual(['a.run.json', 'a_0.bin']);
  });
});
