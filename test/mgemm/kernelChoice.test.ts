// Kernel-family choice: which term groups factor into plane sums, and which family each adapter gets.
import { describe, expect, it } from 'vitest';
import type { GpuCapabilities } from '../../src/mgemm/index.js';
import { chooseKernelFamily, factorGroup } from '../../src/mgemm/kernels/webgpu/plan/kernelChoice.js';
import { planeLayout, tally3Plan, termGroups2 } from '../helpers/layouts.js';

const caps = (hasSubgroupMatrix: boolean): GpuCapabilities => ({
  description: 'test adapter', position: null, maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 2 ** 32, maxComputeWorkgroupStorageSize: 32768,
  maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupsPerDimension: 65535, minStorageBufferOffsetAlignment: 256, minUniformBufferOffsetAlignment: 256, hasSubgroupMatrix,
});

describe('factorGroup', () => {
  it('factors every group the engine builds', () => {
    const groups = [
      ...termGroups2(planeLayout('ccc', false)), ...termGroups2(planeLayout('ccc', true)),
      ...termGroups2(planeLayout('duo', true)), ...tally3Plan(planeLayout('ccc', true)).termGroups,
    ];
    for (const g of groups) expect(factorGroup(g)).not.toBeNull();
    expect(factorGroup([[0, 0], [0, 1], [1, 0], [1, 1]])).toEqual({ aPlanes: [0, 1], bPlanes: [0, 1] });
  });

  it('refuses groups that are not a full product of plane sets, repeated terms and empty groups', () => {
    expect(factorGroup([[0, 0], [1, 1]])).toBeNull();
    expect(factorGroup([[0, 0], [0, 0]])).toBeNull();
    expect(factorGroup([])).toBeNull();
  });
});

describe('chooseKernelFamily', () => {
  const factored = termGroups2(planeLayout('ccc', true));
  it('auto: tensor cores when the adapter has them and the groups factor, else bitwise', () => {
    expect(chooseKernelFamily('auto', factored, caps(true))).toBe('subgroup-matrix');
    expect(chooseKernelFamily('auto', factored, caps(false))).toBe('bitwise');
    expect(chooseKernelFamily('auto', [[[0, 0], [1, 1]]], caps(true))).toBe('bitwise');
  });
  it('named families: as asked, bitwise for unfactored groups, an error for missing tensor cores', () => {
    expect(chooseKernelFamily('dot4', factored, caps(false))).toBe('dot4');
    expect(chooseKernelFamily('subgroup-matrix', factored, caps(true))).toBe('subgroup-matrix');
    expect(chooseKernelFamily('dot4', [[[0, 0], [1, 1]]], caps(false))).toBe('bitwise');
    expect(() => chooseKernelFamily('subgroup-matrix', factored, caps(false))).toThrow(/no u8 subgroup matrices/);
  });
});
