// `halfDiagonal: 'split'` against SPEC §6's `lower-rows` plan on in-process ranks (cpu): the SPEC §5 checksums,
// the same entries and zeros, phases run one at a time, and the same records overall (written by other ranks).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { maxNumPhase } from '../../src/parallel/index.js';
import { runJob, type DecompositionSpec } from '../../src/engine/index.js';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { caseNamed, makeJob, splitRunChecksum, type JobOptions } from './jobFixtures.js';

const pairsOf = (numVector: number): number => (numVector * (numVector - 1)) / 2;

const dir = mkdtempSync(join(tmpdir(), 'snptally-halfdiag-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Every record of a run's files as sorted `x,y=value` lines, coordinates (2·G + E) ascending: which rank wrote
 * a record, and so in which order it gave the pair's two vectors, does not matter.
 */
function recordsOf(outputFiles: readonly string[]): string[] {
  const lines: string[] = [];
  for (const file of outputFiles) {
    for (const record of readMetricsFileRecords(file, 2)) lines.push(`${[...record.coords].sort((a, b) => a - b).join(',')}=${record.value}`);
  }
  return lines.sort();
}

describe('split half diagonal on in-process ranks (cpu)', () => {
  for (const prefix of ['CCC 2-way, nv 48', 'CCC 2-way sparse', 'DUO 2-way sparse']) {
    const c = caseNamed(prefix);
    for (const numProcVector of [2, 4, 6]) {
      const grid: Partial<DecompositionSpec> = { numProcVector, numProcField: 2, numProcRepl: 2, halfDiagonal: 'split' };
      const maxPhase = maxNumPhase(2, numProcVector);
      // 24 worker threads at npv 6: one run there, with the most phases, is enough.
      const phaseCounts = numProcVector === 6 ? [maxPhase] : [1, maxPhase];
      it(`${prefix}: npv ${numProcVector} npf 2 npr 2, phases ${phaseCounts.join(' and ')}, gives the SPEC checksum`, async () => {
        for (const numPhase of phaseCounts) {
          const result = await runJob(makeJob({ ...c.job, decomposition: { ...grid, numPhase } }));
          expect(result.checksum).toBe(c.checksum);
          expect(result.entries).toBe(4 * pairsOf(c.job.numVector));
          expect(result.comparisons).toBe(pairsOf(c.job.numVector) * c.job.numField);
        }
      });
    }
  }

  it('one run per phase sums to the SPEC checksum (CCC dense, npv 4 npr 2, 3 phases; npv 2, 2 phases)', async () => {
    const c = caseNamed('CCC 2-way, nv 48');
    expect(await splitRunChecksum(c.job, { numProcVector: 4, numProcRepl: 2, numPhase: 3, halfDiagonal: 'split' })).toBe(c.checksum);
    expect(await splitRunChecksum(c.job, { numProcVector: 2, numPhase: 2, halfDiagonal: 'split' })).toBe(c.checksum);
  });

  it.each([
    { name: 'DUO sparse nv 47 nf 90, threshold 0.5, npv 4 npr 2, 2 phases', job: { metric: 'duo', sparse: true, numVector: 47, numField: 90, threshold: 0.5, decomposition: { numProcVector: 4, numProcRepl: 2, numPhase: 2 } } },
    { name: 'CCC dense nv 61 nf 77, threshold 0.6, npv 6 npf 2', job: { numVector: 61, numField: 77, threshold: 0.6, decomposition: { numProcVector: 6, numProcField: 2 } } },
    { name: 'CCC sparse nv 33 nf 50, threshold 0.55, npv 2', job: { sparse: true, numVector: 33, numField: 50, threshold: 0.55, decomposition: { numProcVector: 2 } } },
  ] satisfies { name: string; job: JobOptions }[])('equals lower-rows in checksum, entries, zeros and records: $name', async ({ name, job }) => {
    const stub = (plan: string): string => join(dir, `${name.replace(/[^a-z0-9]/gi, '')}-${plan}`);
    const lower = await runJob(makeJob({ ...job, outputStub: stub('lower') }));
    const split = await runJob(makeJob({ ...job, outputStub: stub('split'), decomposition: { ...job.decomposition, halfDiagonal: 'split' } }));
    expect({ checksum: split.checksum, entries: split.entries, zeros: split.zeros }).toEqual({ checksum: lower.checksum, entries: lower.entries, zeros: lower.zeros });
    expect(split.entries).toBeLessThan(4 * pairsOf(job.numVector));
    const records = recordsOf(split.outputFiles);
    expect(records).toEqual(recordsOf(lower.outputFiles));
    expect(records.length).toBe(split.entries);
  });
});
