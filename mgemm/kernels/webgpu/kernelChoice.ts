// Choosing the kernel family of a request: the tensor-core u8 GEMM where the adapter has it and the
// term groups allow it, the portable bitwise kernel otherwise.

import type { TermGroup } from '../../contract.js';
import type { GpuCapabilities } from './gpuAdapter.js';

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
 * Fewest rows of a u8 operand that the kernel set's expansion budget must hold (one term group / several) for `auto`
 * to choose tensor cores: with very many fields a row's expansion is large (1 MiB at 2^20 fields), sub-blocks shrink
 * and both operands are expanded anew for each, more memory traffic than the GEMM. Measured on an H100 (kernel only,
 * nv 4096, 10^12 comparisons/s, u8 tensor cores / bitwise, 512 MiB budget): dense 130 / 31 up to 2^17 fields,
 * 114 / 31 at 2^18 (2048 rows), 41 / 31 at 2^19 (1024 rows), 12 / 31 at 2^20 (512 rows); sparse (four groups) 35 / 14
 * up to 2^17, 30 / 13 at 2^18, 9.9 / 14 at 2^19, 3.2 / 14 at 2^20.
 */
export const U8_MIN_BUDGET_ROWS = { oneGroup: 1024, severalGroups: 2048 } as const;

/**
 * `auto`: tensor cores when the adapter has u8 subgroup matrices, every group factors (then one u8 multiply-add
 * replaces |aPlanes|·|bPlanes| AND+popcounts per 32 fields, and the tensor cores run ~20× more multiply-adds per
 * second than the chip has popcounts) and the expansion budget holds enough rows (`u8BudgetRows`, see
 * U8_MIN_BUDGET_ROWS); else bitwise. A named family is used as asked when possible; `subgroup-matrix` without the
 * feature is an error.
 */
export function chooseKernelFamily(
  requested: KernelFamily | 'auto', groups: readonly TermGroup[], caps: GpuCapabilities, u8BudgetRows: number,
): KernelFamily {
  const factors = groups.every((g) => factorGroup(g) !== null);
  if (requested === 'subgroup-matrix' && !caps.hasSubgroupMatrix) {
    throw new Error(`${caps.description} has no u8 subgroup matrices (chromium-experimental-subgroup-matrix)`);
  }
  if (requested === 'auto') {
    const minRows = groups.length > 1 ? U8_MIN_BUDGET_ROWS.severalGroups : U8_MIN_BUDGET_ROWS.oneGroup;
    return caps.hasSubgroupMatrix && factors && u8BudgetRows >= minRows ? 'subgroup-matrix' : 'bitwise';
  }
  return requested !== 'bitwise' && !factors ? 'bitwise' : requested;
}
