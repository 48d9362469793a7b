// `snptally epistasis --order 4` end to end: the printed top-N against the brute-force reference, `--score-threshold`
// records (per rank, plain SNP indices, float32 scores; pairs and triples too) read back by `snptally dump` with SNP
// names and positions and sorted strongest first (K2 smallest, IG largest), and one-line refusals (no --out, an existing file without --force, a bad number).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';
import { naiveEpistasis, randomCaseControlData } from '../analyses/epistasis/naiveEpistasis.js';
import { writeCaseControlFileset } from '../analyses/epistasis/epistasisFiles.js';

const dir = mkdtempSync(join(tmpdir(), 'epistasis4-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snptally epistasis --order 4', () => {
  const data = randomCaseControlData(8, 50, 21, 0.02);
  const prefix = join(dir, 'd');
  writeCaseControlFileset(prefix, data);

  it('prints the naive top quadruples with their tables, JSON', () => {
    const want = naiveEpistasis(data, 4, 'mi');
    const byTuple = new Map(want.map((t) => [t.snps.map((snp) => `snp${snp}`).join(','), t]));
    const outcome = runCli(['epistasis', '--bfile', prefix, '--order', '4', '--score', 'mi', '--top', '3', '--json', '--threads', '2']);
    expect(outcome.stderr).toBe('');
    const json = JSON.parse(outcome.stdout) as { numTuples: number; top: { snps: { id: string }[]; score: number; controls: number[]; cases: number[] }[] };
    expect(json.numTuples).toBe(70);
    // Rank by rank the reference's scores (small tables tie: the tuple may be any of a tie), each tuple's own table.
    json.top.forEach((hit, rank) => {
      const reference = byTuple.get(hit.snps.map((snp) => snp.id).join(','))!;
      expect(hit.controls).toEqual(reference.controls);
      expect(hit.cases).toEqual(reference.cases);
      expect(hit.score).toBeCloseTo(reference.score, 9);
      expect(hit.score).toBeCloseTo(want[rank].score, 9);
    });
  });

  it('--score-threshold writes the naive set to rank files that dump names and places', () => {
    const want = naiveEpistasis(data, 4, 'k2');
    let n = 6;
    while (Math.abs(want[n - 1].score - want[n].score) < 1e-6) n++;
    const threshold = String((want[n - 1].score + want[n].score) / 2);
    const stub = join(dir, 'records');
    const run = runCli(['epistasis', '--bfile', prefix, '--order', '4', '--score-threshold', threshold, '--out', stub, '--npv', '2', '--threads', '2']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`${n} of 70 tuples past ${threshold}`);
    const dump = runCli(['dump', `${stub}_0.bin`, `${stub}_1.bin`, '--format', 'tsv', '--sort', 'file']);
    expect(dump.status).toBe(0);
    const lines = dump.stdout.trim().split('\n');
    expect(lines[0]).toBe('CHR_A\tBP_A\tSNP_A\tCHR_B\tBP_B\tSNP_B\tCHR_C\tBP_C\tSNP_C\tCHR_D\tBP_D\tSNP_D\tENTRY\tEPISTASIS');
    const got = lines.slice(1).map((line) => line.split('\t'));
    const wantLines = new Map(want.slice(0, n).map((t) => [t.snps.map((s) => `2\t${100 + s}\tsnp${s}`).join('\t'), t.score]));
    expect(got.map((fields) => fields.slice(0, 12).join('\t')).sort()).toEqual([...wantLines.keys()].sort());
    for (const fields of got) expect(Number(fields[13])).toBeCloseTo(wantLines.get(fields.slice(0, 12).join('\t'))!, 3);

    // K2 records: smaller is stronger, so --sort value and top list the smallest first (the naive order).
    const byValue = runCli(['dump', `${stub}_0.bin`, `${stub}_1.bin`, '--no-header', '--sort', 'value']);
    const dumpedScores = byValue.stdout.trim().split('\n').map((line) => Number(line.split('\t').at(-1)));
    dumpedScores.forEach((score, rank) => expect(score).toBeCloseTo(want[rank].score, 3));
    const top = runCli(['top', `${stub}_0.bin`, `${stub}_1.bin`, '-k', '2', '--no-header']);
    expect(top.stdout.trim().split('\n').map((line) => Number(line.split('\t').at(-1)))).toEqual(dumpedScores.slice(0, 2));

    const again = runCli(['epistasis', '--bfile', prefix, '--order', '4', '--score-threshold', threshold, '--out', stub, '--npv', '2']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^snptally: --out .*records: .*records_0\.bin exists \(give --force to replace it\)\n$/);
    expect(runCli(['epistasis', '--bfile', prefix, '--order', '4', '--score-threshold', threshold, '--out', stub, '--npv', '2', '--force']).status).toBe(0);
  });

  it('--score-threshold for pairs and triples too: the naive set, IG ≥ X', () => {
    for (const order of [2, 3] as const) {
      const want = naiveEpistasis(data, order, 'ig');
      let n = 5;
      while (Math.abs(want[n - 1].score - want[n].score) < 1e-6) n++;
      const threshold = String((want[n - 1].score + want[n].score) / 2);
      const stub = join(dir, `records${order}`);
      const run = runCli(['epistasis', '--bfile', prefix, '--order', String(order), '--score', 'ig', '--score-threshold', threshold, '--out', stub]);
      expect(run.stderr).toBe('');
      const dump = runCli(['dump', `${stub}_0.bin`, '--no-header', '--sort', 'file']);
      const got = dump.stdout.trim().split('\n').map((line) => line.split('\t').slice(order, 2 * order).join(','));
      expect(got.sort()).toEqual(want.slice(0, n).map((t) => t.snps.map((s) => `snp${s}`).join(',')).sort());
      // IG records: larger is stronger, listed first.
      const byValue = runCli(['dump', `${stub}_0.bin`, '--no-header', '--sort', 'value']);
      byValue.stdout.trim().split('\n').forEach((line, rank) => expect(Number(line.split('\t').at(-1))).toBeCloseTo(want[rank].score, 5));
    }
  });

  it('refuses --score-threshold without --out, and a threshold that is not a number', () => {
    const noOut = runCli(['epistasis', '--bfile', prefix, '--order', '4', '--score-threshold', '3']);
    expect(noOut.status).toBe(1);
    expect(noOut.stderr).toBe('snptally: --score-threshold needs --out STUB (the records go to STUB_<rank>.bin)\n');
    const bad = runCli(['epistasis', '--bfile', prefix, '--order', '4', '--score-threshold', 'x1', '--out', join(dir, 'bad')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('snptally: --score-threshold: "x1" is not a number\n');
  });
});
