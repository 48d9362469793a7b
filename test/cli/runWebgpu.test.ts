// `snptally run --backend webgpu|auto` through the CLI: SPEC checksum, and auto's one-line note on stderr.
import { describe, expect, it } from 'vitest';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { runCli } from './cliHarness.js';

const gate = await webgpuGate();

describe.skipIf(!gate.available)(`run on the GPU (${gate.description})`, () => {
  it('--backend webgpu prints the SPEC §5 checksum and names the backend', () => {
    const outcome = runCli(['run', '--backend', 'webgpu', '--sparse', '--vectors', '48', '--fields', '100']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/^metrics checksum 0-33543338342814-112679650647204196 /);
    expect(outcome.stdout).toMatch(/\nbackend webgpu /);
  });

  it('--backend auto says which backend it chose', () => {
    const outcome = runCli(['run', '--backend', 'auto', '--json', '--vectors', '48', '--fields', '100']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stderr).toMatch(/snptally: --backend auto: using webgpu on /);
    const result = JSON.parse(outcome.stdout) as { checksum: string; backend: string };
    expect(result).toMatchObject({ checksum: '0-34600668891914-795881718560018816', backend: 'webgpu' });
  });
});
