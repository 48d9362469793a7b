// Term groups whose products never share a bit (KING's ibs0 = HOM1·HOM2 + HOM2·HOM1: one-hot genotype planes), which the
// bitwise kernel counts with one popcount of their OR instead of one per term (it runs at the chip's popcount rate).
// Disjointness is only known for operands held as 2-bit codes (PlaneMatrix.codeRows / codeRecords): two planes never
// both set when no code sets both of their bits. Other operands are never fused.

import type { PlaneMatrix, PopcountGemmRequest, TermGroup } from '../../../contract.js';

/** Whether planes p and q are never both set in a field, by the code table (bit p of bitsOfCode[code] = plane p). */
export function planesDisjointByCodes(bitsOfCode: readonly number[], p: number, q: number): boolean {
  return bitsOfCode.every((bits) => ((bits >> p) & (bits >> q) & 1) === 0);
}

/** The code table of a matrix held as codes, or null. */
function codeTableOf(matrix: PlaneMatrix): readonly number[] | null {
  return matrix.codeRows?.bitsOfCode ?? matrix.codeRecords?.bitsOfCode ?? null;
}

/**
 * Per group, whether its products are pairwise disjoint by the operands' code tables (`tableA`, `tableB`; null: not
 * known): terms (p, q) and (r, s) never both count a field when planes p and r are disjoint in A or q and s in B.
 */
export function disjointGroupsOf(termGroups: readonly TermGroup[], tableA: readonly number[] | null, tableB: readonly number[] | null): boolean[] {
  return termGroups.map((group) => group.length >= 2 && group.every(([p, q], t) => group.slice(t + 1).every(([r, s]) =>
    (tableA !== null && planesDisjointByCodes(tableA, p, r)) || (tableB !== null && planesDisjointByCodes(tableB, q, s)))));
}

/** disjointGroupsOf for a request's operands. */
export function disjointGroupsOfRequest(request: Pick<PopcountGemmRequest, 'termGroups' | 'a' | 'b'>): boolean[] {
  return disjointGroupsOf(request.termGroups, codeTableOf(request.a), codeTableOf(request.b));
}
