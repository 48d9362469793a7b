// Kernel-family choice: which term groups factor into plane sums, and which family each adapter gets.
import { describe, expect, it } from 'vitest';
import type { GpuCapabilities } from '../../mgemm/index.js';
import { chooseKernelFamily, factorGroup, U8_MIN_BUDGET_ROWS } from '../../mgemm/kernels/webgpu/kernelChoice.js';
import { planeLayout, tally3Plan, termGroups2 } from '../../src/engine/tallyLayout.js';

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
  const dense = termGroups2(planeLayout('ccc', false));
  const roomy = 1 << 16;
  it('auto: tensor cores when the adapter has them and the groups factor, else bitwise', () => {
    expect(chooseKernelFamily('auto', factored, caps(true), roomy)).toBe('subgroup-matrix');
    expect(chooseKernelFamily('auto', factored, caps(false), roomy)).toBe('bitwise');
    expect(chooseKernelFamily('auto', [[[0, 0], [1, 1]]], caps(true), roomy)).toBe('bitwise');
  });
  it('auto: bitwise when the expansion budget holds too few rows (very many fields), fewer for one group than several', () => {
    expect(factored.length).toBeGreaterThan(1);
    expect(dense).toHaveLength(1);
    const { oneGroup, severalGroups } = U8_MIN_BUDGET_ROWS;
    expect(chooseKernelFamily('auto', dense, caps(true), oneGroup)).toBe('subgroup-matrix');
    expect(chooseKernelFamily('auto', dense, caps(true), oneGroup - 1)).toBe('bitwise');
    expect(chooseKernelFamily('auto', factored, caps(true), severalGroups)).toBe('subgroup-matrix');
    expect(chooseKernelFamily('auto', factored, caps(true), severalGroups - 1)).toBe('bitwise');
  });
  it('named families: as asked whatever the budget, bitwise for unfactored groups, an error for missing tensor cores', () => {
    expect(chooseKernelFamily('dot4', factored, caps(false), 1)).toBe('dot4');
    expect(chooseKernelFamily('subgroup-matrix', factored, caps(true), 1)).toBe('subgroup-matrix');
    expect(chooseKernelFamily('dot4', [[[0, 0], [1, 1]]], caps(false), roomy)).toBe('bitwise');
    expect(() => chooseKernelFamily('subgroup-matrix', factored, caps(false), roomy)).toThrow(/no u8 subgroup matrices/);
  });
});
