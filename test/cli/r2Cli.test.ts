// `--metric r2` on the command line: the job it builds, the options it refuses, and `dump` of its files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRunPlan } from '../../src/cli/runOptions.js';
import { formatFloat32 } from '../../src/cli/formatFloat32.js';
import { UserError } from '../../src/core/errors.js';
import { packFieldValues, writePackedVectorFile } from '../../src/io/index.js';
import { ldProblemCodes } from '../helpers/ldProblem.js';
import { naiveR2 } from '../helpers/naiveR2.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-r2-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run --metric r2 options', () => {
  it('builds a 2-way r2 job', () => {
    const { spec } = buildRunPlan({ metric: 'r2', sparse: true }, 2);
    expect(spec.metricSpec).toMatchObject({ metric: 'r2', numWay: 2, sparse: true });
  });

  it('skips missing calls for r2 without --sparse; ccc and duo keep the explicit choice', () => {
    expect(buildRunPlan({ metric: 'r2' }, 2).spec.metricSpec.sparse).toBe(true);
    expect(buildRunPlan({ metric: 'ccc' }, 2).spec.metricSpec.sparse).toBe(false);
    expect(buildRunPlan({ metric: 'duo' }, 2).spec.metricSpec.sparse).toBe(false);
    expect(buildRunPlan({ metric: 'duo', sparse: true }, 2).spec.metricSpec.sparse).toBe(true);
  });

  for (const [name, options] of [
    ['--ccc-param', { cccParam: '0.5' }],
    ['--ccc-multiplier', { cccMultiplier: '2' }],
    ['--duo-multiplier', { duoMultiplier: '2' }],
    ['--threshold', { threshold: '0.1,0.2,0.3,0.4' }],
  ] as const) {
    it(`refuses ${name}, which r2 does not have`, () => {
      expect(() => buildRunPlan({ metric: 'r2', ...options }, 1)).toThrow(UserError);
      expect(() => buildRunPlan({ metric: 'r2', ...options }, 1)).toThrow(name);
    });
  }

  it('refuses --way 3 with one line and exit status 1', () => {
    const outcome = runCli(['run', '--metric', 'r2', '--way', '3', '--vectors', '6', '--fields', '10']);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toBe('snptally: --metric r2 is 2-way only: LD r² is defined for pairs of SNPs (drop --way 3)\n');
  });
});

describe('dump of r2 files', () => {
  it('prints one line per pair, entry 11, the float32 r² (NaN where undefined)', () => {
    const numVector = 16, numField = 40;
    const codes = ldProblemCodes(numVector, numField, 5, 0.1);
    const input = join(dir, 'ld.bin');
    writePackedVectorFile(input, packFieldValues(numVector, numField, (v, f) => codes[v * numField + f]), numVector, numField);
    const stub = join(dir, 'r2run');
    const run = runCli(['run', '--metric', 'r2', '--sparse', '--input', input, '--vectors', String(numVector),
      '--fields', String(numField), '--npv', '2', '--output', stub]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^r2 2-way sparse vectors 16 fields 40/m);
    const dump = runCli(['dump', '--header', `${stub}_0.bin`, `${stub}_1.bin`]);
    expect(dump.status, dump.stderr).toBe(0);
    const [header, ...lines] = dump.stdout.trimEnd().split('\n');
    expect(header).toBe('i\tj\tentry\tvalue');
    const naive = naiveR2(numVector, numField, true, (v, f) => codes[v * numField + f]);
    expect(lines).toHaveLength(naive.values.size);
    const got = new Map<string, string>(lines.map((line): [string, string] => {
      const [i, j, entry, value] = line.split('\t');
      expect(entry).toBe('11');
      return [`${Math.min(+i, +j)},${Math.max(+i, +j)}`, value];
    }));
    for (const [key, value] of naive.values) expect(got.get(key), key).toBe(formatFloat32(value));
    expect([...got.values()]).toContain('NaN');
  });
});
