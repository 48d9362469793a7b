// `snptally run --backend webgpu|auto` through the CLI: SPEC checksum, auto's one-line note on stderr, and
// which GPU each rank used.
import { describe, expect, it } from 'vitest';
import type { RankDevice } from '../../src/engine/index.js';
import { loadNativePopcountKernel, nativeKernelSetName, WASM_KERNEL_SET_NAME, WEBGPU_KERNEL_SET_PREFIX } from '../../src/mgemm/index.js';
import { gpuIndexLayerGate, webgpuGate } from '../helpers/webgpuGate.js';
import { runCli } from './cliHarness.js';

const gate = await webgpuGate();
const layer = gpuIndexLayerGate();

describe.skipIf(!gate.available)(`run on the GPU (${gate.description})`, () => {
  it('--backend webgpu prints the SPEC §5 checksum and names the backend', () => {
    const outcome = runCli(['run', '--backend', 'webgpu', '--sparse', '--vectors', '48', '--fields', '100']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/^metrics checksum 0-33543338342814-112679650647204196 /);
    expect(outcome.stdout).toMatch(/\nbackend webgpu /);
  });

  it('--metric r2 --json: every pair finalized on the GPU, the cpu checksum', () => {
    const args = ['run', '--metric', 'r2', '--sparse', '--vectors', '60', '--fields', '100', '--json'];
    const gpu = runCli([...args, '--backend', 'webgpu']);
    const cpu = runCli([...args, '--backend', 'cpu']);
    expect(gpu.status, gpu.stderr).toBe(0);
    expect(cpu.status, cpu.stderr).toBe(0);
    const result = JSON.parse(gpu.stdout) as { checksum: string; deviceFinalizedPairs: number };
    expect(result).toMatchObject({ checksum: (JSON.parse(cpu.stdout) as { checksum: string }).checksum, deviceFinalizedPairs: (60 * 59) / 2 });
  });

  it('--backend auto says which backend it chose (cpu when the only adapter is a software one)', () => {
    const outcome = runCli(['run', '--backend', 'auto', '--json', '--vectors', '48', '--fields', '100']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stderr).toMatch(gate.isSoftware
      ? /snptally: --backend auto: only a software WebGPU adapter \(.+\), using cpu/
      : /snptally: --backend auto: using webgpu on /);
    const result = JSON.parse(outcome.stdout) as { checksum: string; backend: string };
    expect(result).toMatchObject({ checksum: '0-34600668891914-795881718560018816', backend: gate.isSoftware ? 'cpu' : 'webgpu' });
  });

  it.skipIf(!layer.built)(`numbers the GPUs and gives in-process ranks theirs in turn (${layer.reason})`, () => {
    const json = runCli(['run', '--backend', 'webgpu', '--npv', '3', '--vectors', '48', '--fields', '100', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { checksum: string; rankDevices: RankDevice[] };
    expect(result.checksum).toBe('0-34600668891914-795881718560018816');
    const numGpus = result.rankDevices[0].gpuCount ?? 0;
    expect(numGpus).toBeGreaterThanOrEqual(1);
    expect(result.rankDevices).toEqual([0, 1, 2].map((rank) => ({
      rank, description: result.rankDevices[0].description, gpuIndex: rank % numGpus, gpuCount: numGpus,
      kernelSet: result.rankDevices[0].kernelSet,
    })));
    expect(result.rankDevices[0].kernelSet.startsWith(WEBGPU_KERNEL_SET_PREFIX)).toBe(true);
    expect(result.rankDevices[0].description).not.toMatch(/gpu-\d+-of-\d+/);

    const text = runCli(['run', '--backend', 'webgpu', '--npv', '2', '--vectors', '48', '--fields', '100']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`\ngpus rank 0 gpu 0 of ${numGpus}, rank 1 gpu ${1 % numGpus} of ${numGpus}: \\S`));
  });

  // The other ranks stop through their own error path (their GPU devices closed) before any thread ends: terminating
  // them with their devices open aborted the process natively, without the rank's message.
  it.each([
    { name: 'field ranks', args: ['--npf', '4'] },
    { name: 'vector ranks exchanging blocks', args: ['--npv', '4', '--vectors', '300', '--fields', '300'] },
    { name: '3-way vector ranks', args: ['--way', '3', '--npv', '3'] },
  ])('in-process ranks on the GPU: a failing rank ends the job with its message ($name)', ({ args }) => {
    const outcome = runCli(['run', '--backend', 'webgpu', '--vectors', '60', '--fields', '100', ...args],
      { env: { SNPTALLY_DEBUG_FAIL_RANK: '1', SNPTALLY_TRACE: '1' } });
    // The trace says where each rank was should the job ever not end with the message.
    expect(outcome.status, outcome.stderr).toBe(2);
    const lines = outcome.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('Warning: ') && !line.startsWith('[trace] '));
    expect(lines).toEqual(['snptally: internal error: rank 1: induced failure of rank 1 (SNPTALLY_DEBUG_FAIL_RANK)']);
    expect(outcome.stdout).toBe('');
  });

  it('SNPTALLY_GPU_PROFILE=1 writes each program\'s GPU time to stderr and changes no result', () => {
    const args = ['run', '--backend', 'webgpu', '--vectors', '300', '--fields', '1000', '--json'];
    const plain = runCli(args);
    const profiled = runCli(args, { env: { SNPTALLY_GPU_PROFILE: '1' } });
    expect(plain.status, plain.stderr).toBe(0);
    expect(profiled.status, profiled.stderr).toBe(0);
    expect((JSON.parse(profiled.stdout) as { checksum: string }).checksum).toBe((JSON.parse(plain.stdout) as { checksum: string }).checksum);
    expect(plain.stderr).not.toMatch(/gpu-profile/);
    const rows = profiled.stderr.split('\n').filter((line) => line.startsWith('[gpu-profile]'));
    const programs = rows.map((line) => /([\d.]+) ms +([\d.]+) % +(\d+) dispatches  (\S+)$/.exec(line)).filter((m) => m !== null);
    // The run's sums, its finalize and a GEMM program (whichever family this adapter takes), each timed.
    expect(programs.map((m) => m[4])).toEqual(expect.arrayContaining(['finalize2/comet/dense', 'vectorSums:2:0.1:-']));
    expect(programs.length).toBeGreaterThanOrEqual(3);
    for (const m of programs) {
      expect(Number(m[1])).toBeGreaterThan(0);
      expect(Number(m[3])).toBeGreaterThanOrEqual(1);
    }
    expect(programs.reduce((sum, m) => sum + Number(m[2]), 0)).toBeCloseTo(100, 0);
    expect(rows[rows.length - 1]).toMatch(/ ms in all$/);
  });

  it('prints no gpus line for the CPU', () => {
    const outcome = runCli(['run', '--backend', 'cpu', '--npv', '2', '--vectors', '48', '--fields', '100', '--threads', '2', '--json']);
    expect(outcome.status, outcome.stderr).toBe(0);
    const result = JSON.parse(outcome.stdout) as { rankDevices: RankDevice[] };
    const kernelSet = loadNativePopcountKernel().available ? nativeKernelSetName(2) : WASM_KERNEL_SET_NAME;
    expect(result.rankDevices).toEqual([0, 1].map((rank) => ({ rank, description: 'cpu', gpuIndex: null, gpuCount: null, kernelSet })));
    expect(runCli(['run', '--vectors', '48', '--fields', '100']).stdout).not.toMatch(/\ngpus /);
  });
});
