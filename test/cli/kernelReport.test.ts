// `run` says which kernel set computed the tallies: `kernelSet` per rank in --json, a `kernels` line in the text.
import { describe, expect, it } from 'vitest';
import { describeKernelSets } from '../../src/cli/runReport.js';
import type { RankDevice } from '../../src/engine/index.js';
import { loadNativePopcountKernel, nativeKernelSetName, WASM_KERNEL_SET_NAME } from '../../src/mgemm/index.js';
import { runCli } from './cliHarness.js';

const native = loadNativePopcountKernel();
/** What `--backend cpu` must pick here: the AVX-512 kernel where it was built and the CPU has it, else wasm. */
const expectedCpuKernelSet = native.available ? nativeKernelSetName(2) : WASM_KERNEL_SET_NAME;

function cpuRank(rank: number, kernelSet: string): RankDevice {
  return { rank, description: 'cpu', gpuIndex: null, gpuCount: null, kernelSet };
}

describe('run names its kernel set', () => {
  it(`--backend cpu --json: every rank ran ${expectedCpuKernelSet}; the text says so in one line`, () => {
    const json = runCli(['run', '--npv', '2', '--vectors', '48', '--fields', '100', '--threads', '2', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as { rankDevices: RankDevice[] };
    expect(result.rankDevices.map((d) => d.kernelSet)).toEqual([expectedCpuKernelSet, expectedCpuKernelSet]);

    const text = runCli(['run', '--vectors', '48', '--fields', '100', '--threads', '2']);
    expect(text.status, text.stderr).toBe(0);
    const kernelLines = text.stdout.split('\n').filter((line) => line.startsWith('kernels '));
    expect(kernelLines).toEqual([native.available ? `kernels ${expectedCpuKernelSet}` : `kernels ${WASM_KERNEL_SET_NAME} (${native.reason})`]);
  });

  it('--backend ref: the reference kernels', () => {
    const text = runCli(['run', '--backend', 'ref', '--vectors', '20', '--fields', '30']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/\nkernels ref\n/);
  });

  it('lists ranks when they differ, and gives the reason the wasm kernels were used', () => {
    expect(describeKernelSets([cpuRank(0, 'ref'), cpuRank(1, 'ref')])).toBe('kernels ref');
    expect(describeKernelSets([cpuRank(0, 'ref'), cpuRank(1, 'webgpu-bitwise')])).toBe('kernels rank 0 ref, rank 1 webgpu-bitwise');
    const wasm = describeKernelSets([cpuRank(0, WASM_KERNEL_SET_NAME)]);
    expect(wasm).toBe(native.available ? `kernels ${WASM_KERNEL_SET_NAME}` : `kernels ${WASM_KERNEL_SET_NAME} (${native.reason})`);
  });
});
