// `--backend auto`: a metric without GPU kernels (Czekanowski, real values) takes the CPU whatever adapter exists;
// others keep the probe's choice. Named backends pass through.
import { describe, expect, it } from 'vitest';
import { backendNeedsOf, resolveBackend } from '../../src/engine/run/backendChoice.js';
import type { JobSpec } from '../../src/engine/run/jobSpec.js';
import { czekanowskiJob } from '../analyses/czekanowski/czekanowskiJobs.js';

describe('resolveBackend', () => {
  it('takes the CPU for auto when the analysis has no GPU kernels, without probing a GPU', async () => {
    const choice = await resolveBackend('auto', { gpuKernels: false });
    expect(choice.backend).toBe('cpu');
    expect(choice.note).toContain('no GPU kernels');
  });

  it('says which analyses have GPU kernels: Czekanowski (real values) none, CCC some', async () => {
    const czekanowski: JobSpec = czekanowskiJob({ numWay: 2, numVector: 8, numField: 16, precision: 'double' });
    expect(await backendNeedsOf(czekanowski)).toEqual({ gpuKernels: false });
    const ccc: JobSpec = { ...czekanowski, metricSpec: { ...czekanowski.metricSpec, metric: 'ccc' } };
    expect(await backendNeedsOf(ccc)).toEqual({ gpuKernels: true });
  });

  it('passes named backends through', async () => {
    expect((await resolveBackend('cpu', { gpuKernels: false })).backend).toBe('cpu');
    expect((await resolveBackend('ref')).note).toBeNull();
  });
});
