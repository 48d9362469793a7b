// Every decomposition the issue names gives the SPEC checksum: npv 1–5, npf 1–2, npr 1–3 (≤ 6 ranks),
// phases up to the maximum (one run, and one run per phase summed), 3-way stages 1–5.
import { describe, expect, it } from 'vitest';
import { runJob, type DecompositionSpec } from '../../src/engine/index.js';
import { maxNumPhase } from '../../src/parallel/index.js';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { naiveMetrics } from '../helpers/naiveMetrics.js';
import { caseNamed, makeJob, SPEC_CASES, splitRunChecksum } from './jobFixtures.js';

type Grid = Pick<DecompositionSpec, 'numProcVector' | 'numProcField' | 'numProcRepl'>;

/** Grids of at most 6 ranks. */
function grids(maxNpv: number): Grid[] {
  const out: Grid[] = [];
  for (let npv = 1; npv <= maxNpv; npv++) for (let npf = 1; npf <= 2; npf++) for (let npr = 1; npr <= 3; npr++) {
    if (npv * npf * npr <= 6) out.push({ numProcVector: npv, numProcField: npf, numProcRepl: npr });
  }
  return out;
}


const label = (g: Grid): string => `npv ${g.numProcVector} npf ${g.numProcField} npr ${g.numProcRepl}`;

describe('2-way decompositions', () => {
  const dense = caseNamed('CCC 2-way, nv 48');
  for (const g of grids(5)) {
    const maxPhase = maxNumPhase(2, g.numProcVector);
    it(`CCC dense ${label(g)}, phases 1 and ${maxPhase}`, async () => {
      expect((await runJob(makeJob({ ...dense.job, decomposition: g }))).checksum).toBe(dense.checksum);
      expect((await runJob(makeJob({ ...dense.job, decomposition: { ...g, numPhase: maxPhase } }))).checksum).toBe(dense.checksum);
      expect(await splitRunChecksum(dense.job, { ...g, numPhase: maxPhase })).toBe(dense.checksum);
    });
  }
  for (const prefix of ['CCC 2-way sparse', 'DUO 2-way sparse', 'CCC 2-way, nv 4']) {
    const c = caseNamed(prefix);
    for (const g of grids(prefix.endsWith('nv 4') ? 3 : 5)) {
      it(`${prefix} ${label(g)}`, async () => {
        expect((await runJob(makeJob({ ...c.job, decomposition: g }))).checksum).toBe(c.checksum);
      });
    }
  }
});

describe('3-way decompositions', () => {
  const c = caseNamed('CCC 3-way, nv 36');
  for (const g of grids(4)) {
    const maxPhase = maxNumPhase(3, g.numProcVector);
    it(`CCC dense ${label(g)}, stages 1–5, phases up to ${maxPhase}`, async () => {
      expect((await runJob(makeJob({ ...c.job, decomposition: g }))).checksum).toBe(c.checksum);
      expect((await runJob(makeJob({ ...c.job, decomposition: { ...g, numStage: 5, numPhase: maxPhase } }))).checksum).toBe(c.checksum);
      expect(await splitRunChecksum(c.job, { ...g, numStage: g.numProcVector <= 2 ? 5 : 3, numPhase: Math.min(maxPhase, 3) })).toBe(c.checksum);
    });
  }
  it('sparse 3-way equals the naive reference across decompositions', async () => {
    const job = { numWay: 3 as const, sparse: true, numVector: 20, numField: 77 };
    const spec = makeJob(job).metricSpec;
    const base = naiveMetrics(spec, job.numVector, job.numField, (v, f) => randomProblemCode(v, f, job.numField)).checksum;
    for (const g of grids(3)) {
      expect((await runJob(makeJob({ ...job, decomposition: { ...g, numStage: 2 } }))).checksum).toBe(base);
    }
  });
});

describe('ref and cpu backends agree on decomposed runs', () => {
  for (const c of SPEC_CASES) {
    it(c.name, async () => {
      const d = { numProcVector: c.job.numVector >= 36 ? 3 : 1, numProcField: 2 };
      const ref = await runJob(makeJob({ ...c.job, decomposition: d, backend: 'ref' }));
      const cpu = await runJob(makeJob({ ...c.job, decomposition: d, backend: 'cpu' }));
      expect(cpu.checksum).toBe(ref.checksum);
      expect(cpu.checksum).toBe(c.checksum);
    });
  }
});
