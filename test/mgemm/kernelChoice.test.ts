// Kernel-family choice: which term groups factor into plane sums (or sums of such parts), and which family each adapter gets.
import { describe, expect, it } from 'vitest';
import type { GpuCapabilities, TermGroup } from '../../src/mgemm/index.js';
import { chooseKernelFamily, factorGroup, factoredParts } from '../../src/mgemm/kernels/webgpu/plan/kernelChoice.js';
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

describe('factoredParts', () => {
  it('a group that factors is one part; one that does not, a part per term; disjoint or empty groups none', () => {
    expect(factoredParts([[0, 0], [0, 1], [1, 0], [1, 1]], false)).toEqual([{ aPlanes: [0, 1], bPlanes: [0, 1] }]);
    expect(factoredParts([[0, 0], [0, 1], [1, 0], [1, 1]], true)).toEqual([{ aPlanes: [0, 1], bPlanes: [0, 1] }]);
    // r²'s Σ NONZERO·NONZERO + Σ HOM·HOM, KING's ibs0 where its planes are not known to be disjoint.
    expect(factoredParts([[1, 1], [0, 0]], false)).toEqual([{ aPlanes: [1], bPlanes: [1] }, { aPlanes: [0], bPlanes: [0] }]);
    expect(factoredParts([[1, 2], [2, 1]], false)).toEqual([{ aPlanes: [1], bPlanes: [2] }, { aPlanes: [2], bPlanes: [1] }]);
    expect(factoredParts([[1, 2], [2, 1]], true)).toBeNull();
    expect(factoredParts([], false)).toBeNull();
  });
});

describe('chooseKernelFamily', () => {
  const factored = termGroups2(planeLayout('ccc', true));
  const unfactored: TermGroup[] = [[[1, 1], [0, 0]], [[2, 2]]];
  it('auto: tensor cores when the adapter has them and every group is a sum of factored parts, else bitwise', () => {
    expect(chooseKernelFamily('auto', factored, caps(true))).toBe('subgroup-matrix');
    expect(chooseKernelFamily('auto', factored, caps(false))).toBe('bitwise');
    expect(chooseKernelFamily('auto', unfactored, caps(true))).toBe('subgroup-matrix');
    // Disjoint products: one popcount of their OR on the bitwise kernel.
    expect(chooseKernelFamily('auto', unfactored, caps(true), [true, false])).toBe('bitwise');
  });
  it('named families: as asked, bitwise for disjoint unfactored groups, an error for missing tensor cores', () => {
    expect(chooseKernelFamily('dot4', factored, caps(false))).toBe('dot4');
    expect(chooseKernelFamily('subgroup-matrix', factored, caps(true))).toBe('subgroup-matrix');
    expect(chooseKernelFamily('dot4', unfactored, caps(false))).toBe('dot4');
    expect(chooseKernelFamily('dot4', unfactored, caps(false), [true, false])).toBe('bitwise');
    expect(() => chooseKernelFamily('subgroup-matrix', factored, caps(false))).toThrow(/no u8 subgroup matrices/);
  });
});
