// WGSL of the 3-way finalize program (finalize3Program.ts) with an analysis's value program (mgemm/tripleFinalize.ts
// TripleValueProgram): the accessors the program reads its per-vector words through, and what one triple does with
// its value — values named by triples, as ResultSink.addTupleValueRow names them: every triple counts in the checksum
// (uid of its sorted coordinates, no entry bits), the threshold chooses records only.
import type { TripleValueProgram } from '../../../tripleFinalize.js';
import { TRIPLE_UID_WGSL } from './finalize3Wgsl.js';

/** Module-scope declarations of the program variant: per-vector word accessors, then the program's own WGSL. */
export function valueProgramDeclarations(program: TripleValueProgram): string {
  return `/** Word w of the per-vector words of slice row rq, of j, of slice column cq (TripleValueProgram.vectorWords each). */
fn rowWord(rq: u32, w: u32) -> u32 {
  return sliceWords[ROW_VECTORS + rq * VW + w];
}
fn jWord(w: u32) -> u32 {
  return sliceWords[J_VECTOR + w];
}
fn colWord(cq: u32, w: u32) -> u32 {
  return sliceWords[COL_VECTORS + cq * VW + w];
}
${(program.pairCountGroups ?? 0) > 0 ? PAIR_COUNT_ACCESSORS : ''}${program.wgsl}`;
}

/**
 * A value program's pair counts (TripleValueProgram.pairCountGroups): per group, j's row of yx and of yz in the slice's
 * words (tripleFinalizeWebgpu.ts requestFinalizeWords: rows, then columns, group after group), T[cmc] in pairIK.
 */
const PAIR_COUNT_ACCESSORS = `/** Group g of (j, slice row rq), of (j, slice column cq), of (slice row rq, slice column cq). */
fn pairCountIJ(g: u32, rq: u32) -> u32 {
  return sliceWords[R.pairWordsFirst + g * (R.requestRows + R.requestCols) + rq];
}
fn pairCountJK(g: u32, cq: u32) -> u32 {
  return sliceWords[R.pairWordsFirst + g * (R.requestRows + R.requestCols) + R.requestRows + cq];
}
fn pairCountIK(g: u32, rq: u32, cq: u32) -> u32 {
  return pairIK[g * u.ikGroupWords + (R.ikRowFirst + rq) * u.ikStride + R.ikColFirst + cq];
}
`;

/**
 * One triple of the program variant (in the program's loop, with t, rq, cq, gi, gj, gk): its value, a record keyed
 * triple · 8 when it passes the threshold (single or none) and the record bar, and its checksum term.
 */
export const VALUE_PROGRAM_TRIPLE_WGSL = `        let value = tripleValue(t, rq, cq, gi, gj, gk);
        let f = sdToF32Bits(value);
        entries += 1u;
        if (u.writeRecords != 0u && (u.thresholdKind == 0u || above(f, u.threshold0)) && keptByBar(f)) {
          let at = atomicAdd(&status[0], 1u);
          if (at < u.recordCapacity) {
            records[2u * at] = f;
            records[2u * at + 1u] = R.keyFirst + ((rq * R.requestCols + cq) << 3u);
          }
        }
        if (sdIsZero(value)) { zeros += 1u; continue; }
        if ((value.y & SD_SIGN) != 0u || sdExp(value) >= 1027u) { atomicStore(&status[1], 1u); continue; }
        // uid: coordinates sorted descending, (c0·nv + c1)·nv + c2 (entrySink.ts tupleUid).
${TRIPLE_UID_WGSL}
        checksumAddTerm(checksumWeight(checksumResidues(tripleMod)), sdFloorTimes2p56(value));`;
