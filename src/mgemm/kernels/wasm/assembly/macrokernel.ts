// The jr / ir loops of the blocked GEMM: one packed A block against one packed B block.

import { MR, NR, popcountMicrokernel_4x4 } from './microkernel_4x4';

/**
 * C block += A block × B block (popcount-AND products), one microkernel call per MR×NR tile.
 *
 * `aBlock` holds `numRowsPad / MR` micro-panels and `bBlock` `numColsPad / NR`, each `numSteps`
 * 64-bit steps long, laid out as the microkernel reads them. C is u32 with rows `ldcBytes` apart.
 * With `strictUpper` ≠ 0, tiles whose every entry has global row ≥ global column are skipped: the
 * block's first row and column are `rowGlobal` and `colGlobal` in the request's numbering.
 * Loop order as BLIS: jr outer so one B micro-panel stays in L1 while the A micro-panels stream from L2.
 */
export function popcountMacrokernel(
  aBlock: usize,
  bBlock: usize,
  cBlock: usize,
  numRowsPad: i32,
  numColsPad: i32,
  numSteps: i32,
  ldcBytes: usize,
  rowGlobal: i32,
  colGlobal: i32,
  strictUpper: i32,
): void {
  const aPanelBytes = <usize>(MR * numSteps) << 3;
  const bPanelBytes = <usize>(NR * numSteps) << 3;
  for (let jr = 0; jr < numColsPad; jr += NR) {
    // A tile starting at row ir holds some r < c iff rowGlobal + ir < colGlobal + jr + NR - 1.
    const irEnd = strictUpper ? min(numRowsPad, colGlobal + jr + NR - 1 - rowGlobal) : numRowsPad;
    const bPanel = bBlock + <usize>(jr / NR) * bPanelBytes;
    const cColumn = cBlock + (<usize>jr << 2);
    for (let ir = 0; ir < irEnd; ir += MR) {
      popcountMicrokernel_4x4(
        aBlock + <usize>(ir / MR) * aPanelBytes,
        bPanel,
        numSteps,
        cColumn + <usize>ir * ldcBytes,
        ldcBytes,
      );
    }
  }
}
