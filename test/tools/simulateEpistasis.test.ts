// tools/simulate-epistasis: its defaults write a fileset; the penetrance table has the asked prevalence and
// heritability (computed here from the table by Hardy–Weinberg weights); an unreachable heritability is refused with
// the largest one the model reaches, and that largest one is reachable.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { penetranceTable } from '../../tools/lib/epistasisSimulation.js';
import type { PenetranceModel } from '../../tools/lib/epistasisSimulation.js';

const TOOL = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/simulate-epistasis.js');
const dir = mkdtempSync(join(tmpdir(), 'simulate-epistasis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Mean and variance of the penetrance over genotype cells (first SNP slowest), each SNP in Hardy–Weinberg at `maf`. */
function penetranceMoments(table: readonly number[], order: number, maf: number): { mean: number; variance: number } {
  const weights = [(1 - maf) ** 2, 2 * maf * (1 - maf), maf ** 2];
  let mean = 0, square = 0;
  table.forEach((penetrance, cell) => {
    let weight = 1;
    for (let t = 0, rest = cell; t < order; t++, rest = Math.floor(rest / 3)) weight *= weights[rest % 3];
    mean += weight * penetrance;
    square += weight * penetrance * penetrance;
  });
  return { mean, variance: square - mean * mean };
}

describe('simulate-epistasis', () => {
  it('writes a fileset with its defaults', () => {
    const out = join(dir, 'defaults');
    const child = spawnSync(process.execPath, [TOOL, '--out', out, '--snps', '30', '--cases', '40', '--controls', '40'], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(readFileSync(`${out}.fam`, 'utf8').trim().split('\n')).toHaveLength(80);
    expect(JSON.parse(child.stdout).planted).toEqual([10, 20]);
  });

  const models: readonly { readonly model: PenetranceModel; readonly planted: number[]; readonly maf: number; readonly prevalence: number }[] = [
    { model: 'pure', planted: [1, 2], maf: 0.3, prevalence: 0.5 },
    { model: 'marginal', planted: [1, 2, 3], maf: 0.4, prevalence: 0.3 },
    { model: 'pure', planted: [1, 2, 3, 4], maf: 0.5, prevalence: 0.6 },
  ];
  for (const { model, planted, maf, prevalence } of models) {
    it(`reaches the asked prevalence and heritability, and refuses past its largest (${model}, ${planted.length}-way)`, () => {
      const order = planted.length;
      const reach = (heritability: number) => penetranceTable({ maf, prevalence, heritability, model, planted });
      const { table } = reach(0.004);
      const moments = penetranceMoments(table, order, maf);
      expect(moments.mean).toBeCloseTo(prevalence, 12);
      expect(moments.variance / (prevalence * (1 - prevalence))).toBeCloseTo(0.004, 12);
      let message = '';
      try {
        reach(0.9);
      } catch (error) {
        message = (error as Error).message;
      }
      const largest = Number(/at most h² ([0-9.e-]+)/.exec(message)?.[1]);
      expect(largest).toBeGreaterThan(0.004);
      const atLargest = reach(largest * 0.999).table;
      expect(Math.min(...atLargest)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...atLargest)).toBeLessThanOrEqual(1);
      expect(() => reach(largest * 1.01)).toThrow(/at most h²/);
    });
  }
});
