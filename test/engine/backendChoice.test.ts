// `--backend auto`: webgpu on a hardware adapter, cpu on a software one (lavapipe) or none, for every metric —
// Czekanowski (real values, min-plus kernel sets) included. Named backends pass through.
import { describe, expect, it } from 'vitest';
import { resolveBackend } from '../../src/engine/run/backendChoice.js';
import { runJob } from '../../src/engine/index.js';
import { czekanowskiJob } from '../analyses/czekanowski/czekanowskiJobs.js';
import { webgpuGate } from '../helpers/webgpuGate.js';

const gate = await webgpuGate();
const autoBackend = gate.available && !gate.isSoftware ? 'webgpu' : 'cpu';

describe('resolveBackend', () => {
  it(`auto takes ${autoBackend} here (${gate.description}) and says why`, async () => {
    const choice = await resolveBackend('auto');
    expect(choice.backend).toBe(autoBackend);
    expect(choice.note).toContain(autoBackend === 'webgpu' ? 'using webgpu' : 'using cpu');
  });

  it(`a Czekanowski job with --backend auto runs on ${autoBackend}, with the CPU's checksum`, async () => {
    const job = { numWay: 2 as const, numVector: 9, numField: 21, precision: 'double' as const };
    const auto = await runJob(czekanowskiJob({ ...job, backend: 'auto' }));
    const cpu = await runJob(czekanowskiJob({ ...job, backend: 'cpu' }));
    expect(auto.backend).toBe(autoBackend);
    expect(auto.checksum).toBe(cpu.checksum);
  });

  it('passes named backends through', async () => {
    expect((await resolveBackend('cpu')).backend).toBe('cpu');
    expect((await resolveBackend('ref')).note).toBeNull();
  });
});
