// `run --metric r2` with LD windows agrees with plink1.9's own `.ld` (`--r2 --ld-window N --ld-window-kb KB
// --ld-window-r2 R`, and `--r2 inter-chr`): the same set of pairs and r² to PLINK's printed digits, on a fileset of
// three chromosomes with real, increasing positions (equal ones and gaps at the kb boundary among them). Also the
// one-line refusals (unsorted positions, a split chromosome, 3-way, options that do not go together) and run.json's
// window, which merge compares.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-window-plink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plink(args: readonly string[]): void {
  const r = spawnSync('plink1.9', [...args, '--threads', '1', '--allow-no-sex'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plink1.9 ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
}

const prefix = join(dir, 'cohort');
plink(['--dummy', '300', '150', '0.03', '--seed', '11', '--make-bed', '--out', prefix]);
/** .bim lines: chromosomes 1 (60 SNPs), 2 (50), 7 (40); positions rising by 0–6,000 bp, some exactly 5,000 (the kb boundary). */
const bimLines = ((): string[] => {
  let state = 5;
  const next = (): number => (state = (state * 48271) % 2147483647);
  const original = readFileSync(`${prefix}.bim`, 'utf8').trim().split('\n');
  const lines: string[] = [];
  let bp = 0;
  original.forEach((line, v) => {
    const fields = line.split('\t');
    const chromosome = v < 60 ? '1' : v < 110 ? '2' : '7';
    if (v === 0 || v === 60 || v === 110) bp = 10_000 + (next() % 1000);
    else bp += [0, 5000, next() % 6000, next() % 3000][next() % 4];
    lines.push([chromosome, fields[1], '0', String(bp), fields[4], fields[5]].join('\t'));
  });
  return lines;
})();
writeFileSync(`${prefix}.bim`, `${bimLines.join('\n')}\n`);

/** PLINK's `.ld` rows as `SNP_A SNP_B` → printed R2. */
function plinkLd(args: readonly string[]): Map<string, string> {
  const out = join(dir, `plink${runIdx++}`);
  plink(['--bfile', prefix, '--r2', ...args, '--out', out]);
  const rows = readFileSync(`${out}.ld`, 'utf8').trim().split('\n').slice(1).map((line) => line.trim().split(/\s+/));
  return new Map(rows.map((f) => [`${f[2]} ${f[5]}`, f[6]]));
}

let runIdx = 0;
const snpIds = bimLines.map((line) => line.split('\t')[1]);

/** snptally's records as `SNP_A SNP_B` (file order) → float32 r², and its run.json. */
function snptallyLd(args: readonly string[]): { values: Map<string, number>; runJson: Record<string, unknown> } {
  const stub = join(dir, `run${runIdx++}`);
  const outcome = runCli(['run', '--metric', 'r2', '--bfile', prefix, ...args, '--threads', '2', '--out', stub, '--json']);
  expect(outcome.status, outcome.stderr).toBe(0);
  const report = JSON.parse(outcome.stdout) as { outputFiles: string[] };
  const values = new Map<string, number>();
  for (const file of report.outputFiles) {
    for (const { coords, value } of readMetricsFileRecords(file, 2)) {
      const [i, j] = coords.map((x) => x >> 1).sort((a, b) => a - b);
      values.set(`${snpIds[i]} ${snpIds[j]}`, value);
    }
  }
  return { values, runJson: JSON.parse(readFileSync(`${stub}.run.json`, 'utf8')) as Record<string, unknown> };
}

/** PLINK prints 6 significant digits: |ours − printed| ≤ half a unit of the 6th digit (+ float32 rounding). */
function agreesWithPrinted(ours: number, printed: string): boolean {
  const t = Number(printed);
  if (t === 0) return ours === 0;
  const halfUnit = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(t))) - 5);
  return Math.abs(ours - t) <= halfUnit + Math.abs(t) * 2 ** -23;
}

function expectSameLd(ours: Map<string, number>, theirs: Map<string, string>): void {
  expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
  const disagreeing = [...theirs].filter(([pair, printed]) => !agreesWithPrinted(ours.get(pair) as number, printed));
  expect(disagreeing).toEqual([]);
}

describe('windowed r² equals plink1.9 --r2 with the same window', () => {
  const cases: readonly { readonly ours: readonly string[]; readonly plink: readonly string[] }[] = [
    { ours: ['--ld-window', '5', '--ld-window-kb', '12'], plink: ['--ld-window', '5', '--ld-window-kb', '12'] },
    { ours: ['--ld-window-kb', '5', '--npv', '3'], plink: ['--ld-window', '99999', '--ld-window-kb', '5'] },
    { ours: ['--ld-window', '9', '--npv', '2', '--half-diagonal', 'split', '--phases', '2'], plink: ['--ld-window', '9', '--ld-window-kb', '99999'] },
    { ours: ['--ld-window-kb', '40', '--ld-window-r2', '0.005'], plink: ['--ld-window', '99999', '--ld-window-kb', '40', '--ld-window-r2', '0.005'] },
  ];
  for (const c of cases) {
    it(`${c.ours.join(' ')} vs plink1.9 ${c.plink.join(' ')}`, () => {
      const theirs = plinkLd(c.plink.includes('--ld-window-r2') ? c.plink : [...c.plink, '--ld-window-r2', '0']);
      expect(theirs.size).toBeGreaterThan(50);
      const { values, runJson } = snptallyLd(c.ours);
      expectSameLd(values, theirs);
      const window = (runJson.run as { window: unknown }).window;
      expect(window).toEqual({
        ldWindow: c.ours.includes('--ld-window') ? Number(c.ours[c.ours.indexOf('--ld-window') + 1]) : null,
        ldWindowKb: c.ours.includes('--ld-window-kb') ? Number(c.ours[c.ours.indexOf('--ld-window-kb') + 1]) : null,
        interChr: false,
      });
    });
  }

  it('--inter-chr alone is every pair: plink1.9 --r2 inter-chr', () => {
    const theirs = plinkLd(['inter-chr', '--ld-window-r2', '0']);
    expect(theirs.size).toBe((150 * 149) / 2);
    expectSameLd(snptallyLd(['--inter-chr']).values, theirs);
  });

  it('a window of other chromosomes too (--inter-chr with --ld-window-kb): PLINK\'s window plus every pair of two chromosomes', () => {
    const sameChromosome = plinkLd(['--ld-window', '99999', '--ld-window-kb', '8', '--ld-window-r2', '0']);
    const all = plinkLd(['inter-chr', '--ld-window-r2', '0']);
    const chromosomeOf = new Map(bimLines.map((line) => [line.split('\t')[1], line.split('\t')[0]]));
    const expected = new Map([...all].filter(([pair]) => {
      const [a, b] = pair.split(' ');
      return chromosomeOf.get(a) !== chromosomeOf.get(b) || sameChromosome.has(pair);
    }));
    expectSameLd(snptallyLd(['--ld-window-kb', '8', '--inter-chr', '--npv', '2']).values, expected);
  });
});

describe('window refusals and run info', () => {
  const refused = (args: readonly string[]): string => {
    const outcome = runCli(['run', ...args]);
    expect(outcome.status, `${args.join(" ")}: ${outcome.stdout}`).toBe(1);
    const lines = outcome.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0];
  };

  it('positions that decrease, a chromosome in two runs: one line naming the file and the variant', () => {
    const unsorted = join(dir, 'unsorted');
    for (const ext of ['bed', 'fam']) writeFileSync(`${unsorted}.${ext}`, readFileSync(`${prefix}.${ext}`));
    // Swap the first two neighbours of chromosome 1 (past the 20th) whose positions differ.
    const positionOf = (v: number): string => bimLines[v].split('\t')[3];
    const first = Array.from({ length: 38 }, (_, k) => 20 + k).find((v) => positionOf(v) !== positionOf(v + 1)) as number;
    const swapped = [...bimLines];
    [swapped[first], swapped[first + 1]] = [swapped[first + 1], swapped[first]];
    writeFileSync(`${unsorted}.bim`, `${swapped.join('\n')}\n`);
    expect(refused(['--metric', 'r2', '--bfile', unsorted, '--ld-window', '5']))
      .toMatch(new RegExp(`^snptally: .*unsorted\\.bim: variant \\S+ \\(number ${first + 2} .*comes after position`));
    const split = bimLines.map((line, v) => (v >= 50 && v < 55 ? line.replace(/^1\t/, '2\t') : line));
    writeFileSync(`${unsorted}.bim`, `${split.join('\n')}\n`);
    expect(refused(['--metric', 'r2', '--bfile', unsorted, '--ld-window-kb', '10'])).toMatch(/unsorted\.bim: variant \S+ \(number 56 .*on chromosome 1 again/);
  });

  it('options that do not go together', () => {
    expect(refused(['--metric', 'r2', '--bfile', prefix, '--way', '3', '--ld-window', '5'])).toMatch(/--way 2 only/);
    expect(refused(['--metric', 'r2', '--bfile', prefix, '--ld-window', '1'])).toMatch(/--ld-window must be an integer from 2/);
    expect(refused(['--metric', 'r2', '--bfile', prefix, '--ld-window-r2', '0.2', '--threshold', '0.1'])).toMatch(/give one of them/);
    expect(refused(['--metric', 'ccc', '--bfile', prefix, '--sparse', '--ld-window-r2', '0.2'])).toMatch(/needs --metric r2/);
    expect(refused(['--metric', 'r2', '--vectors', '20', '--fields', '10', '--ld-window', '5'])).toMatch(/need chromosomes and positions/);
    expect(refused(['--metric', 'r2', '--bfile', prefix, '--ld-window', '5', '--matrix', 'square', '--out', join(dir, 'm')])).toMatch(/--matrix writes every pair/);
  });

  it('merge refuses a windowed and an unwindowed run of the same data', () => {
    // One prepared file, so that both runs name the same sidecar.
    const packed = join(dir, 'cohort.packed');
    expect(runCli(['prepare', prefix, '--out', packed]).status).toBe(0);
    const windowed = join(dir, 'merge-w');
    const plain = join(dir, 'merge-p');
    expect(runCli(['run', '--metric', 'r2', '--input', packed, '--ld-window', '5', '--out', windowed]).status).toBe(0);
    expect(runCli(['run', '--metric', 'r2', '--input', packed, '--out', plain]).status).toBe(0);
    expect(refusedMerge([`${windowed}_0.bin`, `${plain}_0.bin`])).toMatch(/LD windows .* and none/);
  });

  function refusedMerge(files: readonly string[]): string {
    const outcome = runCli(['merge', ...files, '--out', join(dir, 'merged.bin')]);
    expect(outcome.status).toBe(1);
    return outcome.stderr.trim();
  }
});
