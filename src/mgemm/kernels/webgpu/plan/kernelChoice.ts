// Choosing the kernel family of a request: the tensor-core u8 GEMM where the adapter has it and the
// term groups allow it, the portable bitwise kernel otherwise.

import type { TermGroup } from '../../../contract.js';
import type { GpuCapabilities } from '../runtime/gpuAdapter.js';

/** `bitwise`: AND + countOneBits; `subgroup-matrix`: u8 tensor cores; `dot4`: portable u8 dot products (testing the u8 path). */
export type KernelFamily = 'bitwise' | 'subgroup-matrix' | 'dot4';

/** A term group as a product of plane sums: Σ_terms = (Σ_{p∈aPlanes} a_p)·(Σ_{q∈bPlanes} b_q), or null. */
export interface FactoredGroup {
  readonly aPlanes: readonly number[];
  readonly bPlanes: readonly number[];
}

/**
 * A group factors when its terms are exactly aPlanes × bPlanes, each once — true of every group the
 * engine builds (counts c1 = H + L, masks M, and their 3-way pair products).
 */
export function factorGroup(group: TermGroup): FactoredGroup | null {
  const aPlanes = [...new Set(group.map(([p]) => p))];
  const bPlanes = [...new Set(group.map(([, q]) => q))];
  const terms = new Set(group.map(([p, q]) => `${p}.${q}`));
  if (group.length === 0 || terms.size !== group.length || terms.size !== aPlanes.length * bPlanes.length) return null;
  return { aPlanes, bPlanes };
}

/**
 * A group as a sum of factored parts, each one u8 GEMM adding into the group's output: the group itself when it
 * factors, else one part per term — unless its products are disjoint (`disjoint`: disjointGroups.ts), which the
 * bitwise kernel counts in one popcount of their OR, cheaper than a GEMM per term (null then).
 */
export function factoredParts(group: TermGroup, disjoint: boolean): FactoredGroup[] | null {
  const whole = factorGroup(group);
  if (whole !== null) return [whole];
  if (disjoint || group.length === 0) return null;
  return group.map(([p, q]) => ({ aPlanes: [p], bPlanes: [q] }));
}

/**
 * `auto`: tensor cores when the adapter has u8 subgroup matrices and every group is a sum of factored parts
 * (factoredParts; then one u8 multiply-add replaces |aPlanes|·|bPlanes| AND+popcounts per 32 fields of a part, and the
 * tensor cores run ~20× more multiply-adds per second than the chip has popcounts; with very many fields too,
 * through K slabs: u8Slabs.ts); else bitwise. A named family is used as asked when possible; `subgroup-matrix`
 * without the feature is an error. `disjoint`: per group, whether its products are disjoint (none when not known).
 */
export function chooseKernelFamily(
  requested: KernelFamily | 'auto', groups: readonly TermGroup[], caps: GpuCapabilities, disjoint: readonly boolean[] = [],
): KernelFamily {
  const factors = groups.every((g, k) => factoredParts(g, disjoint[k] === true) !== null);
  if (requested === 'subgroup-matrix' && !caps.hasSubgroupMatrix) {
    throw new Error(`${caps.description} has no u8 subgroup matrices (chromium-experimental-subgroup-matrix)`);
  }
  if (requested === 'auto') return caps.hasSubgroupMatrix && factors ? 'subgroup-matrix' : 'bitwise';
  return requested !== 'bitwise' && !factors ? 'bitwise' : requested;
}
