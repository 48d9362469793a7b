// pairPanelsOf cuts a step's region into panels: every unique pair of the region exactly once (row < col on the
// diagonal block), strictUpper only on tiles that start on the diagonal, and panels near square and near the
// requested size, so that GPU sub-blocks are not thin.
import { describe, expect, it } from 'vitest';
import { allocatePlaneMatrix } from '../../src/mgemm/index.js';
import {
  DEVICE_PAIRS_PER_PANEL, PAIRS_PER_PANEL, TOP_FIRST_PANEL_PAIRS, pairPanelsOf, rampHeadPairs, splitPanelHead, splitPanelRamp, topPairsPerPanel,
  type PairRegion, type PairStep,
} from '../../src/engine/pipeline/pipeline2.js';
import type { VectorBlock } from '../../src/engine/blocks/vectorBlock.js';

const block: VectorBlock = {
  blockIdx: 0, vectorFirst: 0, numVectorReal: 0, planes: allocatePlaneMatrix(0, 1, 0), sums: new Float64Array(0), counts: new Float64Array(0),
};

/** Pairs of `region` by definition, as "row,col". */
function regionPairs(region: PairRegion): Set<string> {
  const pairs = new Set<string>();
  for (let r = region.rowRange.begin; r < region.rowRange.end; r++) {
    for (let c = region.colRange.begin; c < region.colRange.end; c++) if (!region.strictUpper || r < c) pairs.add(`${r},${c}`);
  }
  return pairs;
}

const CASES: Array<{ readonly name: string; readonly region: PairRegion; readonly pairsPerPanel: number }> = [
  { name: 'diagonal block, ragged', region: { rowRange: { begin: 0, end: 103 }, colRange: { begin: 0, end: 103 }, strictUpper: true }, pairsPerPanel: 100 },
  { name: 'diagonal block, rows of a replica', region: { rowRange: { begin: 40, end: 77 }, colRange: { begin: 0, end: 103 }, strictUpper: true }, pairsPerPanel: 64 },
  { name: 'diagonal block in one panel', region: { rowRange: { begin: 0, end: 20 }, colRange: { begin: 0, end: 20 }, strictUpper: true }, pairsPerPanel: 1 << 20 },
  { name: 'wide block', region: { rowRange: { begin: 0, end: 30 }, colRange: { begin: 0, end: 250 }, strictUpper: false }, pairsPerPanel: 400 },
  { name: 'tall block', region: { rowRange: { begin: 5, end: 250 }, colRange: { begin: 11, end: 40 }, strictUpper: false }, pairsPerPanel: 400 },
  { name: 'half of a split block', region: { rowRange: { begin: 0, end: 61 }, colRange: { begin: 61, end: 123 }, strictUpper: false }, pairsPerPanel: 256 },
  { name: 'one pair per panel', region: { rowRange: { begin: 0, end: 7 }, colRange: { begin: 0, end: 9 }, strictUpper: false }, pairsPerPanel: 1 },
  { name: 'empty', region: { rowRange: { begin: 3, end: 3 }, colRange: { begin: 0, end: 9 }, strictUpper: false }, pairsPerPanel: 16 },
];

describe('pairPanelsOf', () => {
  for (const { name, region, pairsPerPanel } of CASES) {
    it(`${name}: every pair once, strictUpper tiles on the diagonal, panels near square`, () => {
      const seen = new Set<string>();
      const side = Math.floor(Math.sqrt(pairsPerPanel));
      for (const panel of pairPanelsOf(block, block, region, pairsPerPanel)) {
        expect(panel.numRows).toBeGreaterThan(0);
        expect(panel.numCols).toBeGreaterThan(0);
        if (panel.strictUpper) expect(panel.colFirst).toBe(panel.rowFirst);
        // No panel wider than a square one (columns are cut first), none with more than twice the pairs asked for.
        expect(panel.numCols).toBeLessThanOrEqual(Math.max(side, 1));
        if (!panel.strictUpper) expect(panel.numRows * panel.numCols).toBeLessThanOrEqual(Math.max(2 * pairsPerPanel, panel.numCols));
        for (let r = panel.rowFirst; r < panel.rowFirst + panel.numRows; r++) {
          for (let c = panel.colFirst; c < panel.colFirst + panel.numCols; c++) {
            if (panel.strictUpper && r >= c) continue;
            const key = `${r},${c}`;
            expect(seen.has(key), `pair ${key} twice`).toBe(false);
            seen.add(key);
          }
        }
      }
      expect(seen).toEqual(regionPairs(region));
    });
  }
});

describe('topPairsPerPanel', () => {
  const step = (n: number, diagonal: boolean): PairStep => ({
    colBlock: 0, isDiagonalBlock: diagonal, rowRange: { begin: 0, end: n }, colRange: { begin: 0, end: n },
  });
  it('about 16 panels of the rank\'s pairs, at least 2^16 and at most the host\'s panel', () => {
    expect(topPairsPerPanel([step(2048, true)])).toBe(Math.ceil((2048 * 2047) / 2 / 16));
    expect(topPairsPerPanel([step(600, true)])).toBe(1 << 16);
    expect(topPairsPerPanel([step(20000, true), step(20000, false)])).toBe(PAIRS_PER_PANEL);
    expect(topPairsPerPanel([step(3000, false), step(1000, false)])).toBe(Math.ceil((3000 * 3000 + 1000 * 1000) / 16));
  });
  it('raised to the kernel set\'s full-rate pairs, at most the device\'s panel', () => {
    expect(topPairsPerPanel([step(2048, true)], 1 << 25)).toBe(1 << 25);
    expect(topPairsPerPanel([step(20000, true)], 1 << 20)).toBe(PAIRS_PER_PANEL);
    expect(topPairsPerPanel([step(2048, true)], 1 << 30)).toBe(DEVICE_PAIRS_PER_PANEL);
    expect(topPairsPerPanel([step(600, true)], 0)).toBe(1 << 16);
  });
});

describe('rampHeadPairs', () => {
  it('the first head, then 16 times more each while a head is within 1/16 of the panels', () => {
    expect(rampHeadPairs(1 << 16)).toEqual([TOP_FIRST_PANEL_PAIRS]);
    expect(rampHeadPairs((1 << 20) - 1)).toEqual([TOP_FIRST_PANEL_PAIRS]);
    expect(rampHeadPairs(1 << 20)).toEqual([TOP_FIRST_PANEL_PAIRS, TOP_FIRST_PANEL_PAIRS * 16]);
    expect(rampHeadPairs(1 << 25)).toEqual([1 << 12, 1 << 16, 1 << 20]);
    expect(rampHeadPairs(1)).toEqual([TOP_FIRST_PANEL_PAIRS]);
  });
});

describe('splitPanelHead (a top-N run\'s first panel)', () => {
  /** Pairs of a panel by definition, as "row,col". */
  const panelPairs = (p: ReturnType<typeof splitPanelHead>[number]): string[] => {
    const pairs: string[] = [];
    for (let r = p.rowFirst; r < p.rowFirst + p.numRows; r++) {
      for (let c = p.colFirst; c < p.colFirst + p.numCols; c++) if (!p.strictUpper || r < c) pairs.push(`${r},${c}`);
    }
    return pairs;
  };
  for (const { name, region, pairsPerPanel } of CASES) {
    it(`${name}: head of few rows and rest hold the panel's pairs once; strictUpper pieces start rows and columns together`, () => {
      for (const panel of pairPanelsOf(block, block, region, pairsPerPanel)) {
        for (const headPairs of [1, 5, 40, 1 << 12]) {
          const pieces = splitPanelHead(panel, headPairs);
          expect(pieces[0].rowFirst).toBe(panel.rowFirst);
          expect(pieces[0].numRows).toBe(Math.min(panel.numRows, Math.max(1, Math.floor(headPairs / panel.numCols))));
          for (const piece of pieces) {
            expect(piece.numRows).toBeGreaterThan(0);
            expect(piece.numCols).toBeGreaterThan(0);
            if (piece.strictUpper) expect(piece.colFirst).toBe(piece.rowFirst);
          }
          const pairs = pieces.flatMap(panelPairs);
          expect(new Set(pairs).size).toBe(pairs.length);
          expect(new Set(pairs)).toEqual(new Set(panelPairs(panel)));
        }
      }
    });
  }
});

describe('splitPanelRamp (a top-N run\'s first panel as growing heads)', () => {
  const panelPairs = (p: ReturnType<typeof splitPanelHead>[number]): string[] => {
    const pairs: string[] = [];
    for (let r = p.rowFirst; r < p.rowFirst + p.numRows; r++) {
      for (let c = p.colFirst; c < p.colFirst + p.numCols; c++) if (!p.strictUpper || r < c) pairs.push(`${r},${c}`);
    }
    return pairs;
  };
  for (const { name, region, pairsPerPanel } of CASES) {
    it(`${name}: heads in order of rows, each of about its pairs, and the rest hold the panel's pairs once`, () => {
      for (const panel of pairPanelsOf(block, block, region, pairsPerPanel)) {
        for (const heads of [[1, 16, 256], [40], [3, 48]]) {
          const pieces = splitPanelRamp(panel, heads);
          expect(pieces.length).toBeLessThanOrEqual(heads.length + 1);
          let rowFirst = panel.rowFirst;
          for (const [k, piece] of pieces.entries()) {
            expect(piece.rowFirst).toBe(rowFirst);
            expect(piece.numRows).toBeGreaterThan(0);
            if (piece.strictUpper) expect(piece.colFirst).toBe(piece.rowFirst);
            // A head has the rows its pairs ask for (at least one) unless it is what was left of the panel.
            const rowsLeft = panel.rowFirst + panel.numRows - rowFirst;
            if (k < heads.length && k < pieces.length - 1) expect(piece.numRows).toBe(Math.max(1, Math.floor(heads[k] / piece.numCols)));
            expect(piece.numRows).toBeLessThanOrEqual(rowsLeft);
            rowFirst += piece.numRows;
          }
          const pairs = pieces.flatMap(panelPairs);
          expect(new Set(pairs).size).toBe(pairs.length);
          expect(new Set(pairs)).toEqual(new Set(panelPairs(panel)));
        }
      }
    });
  }
});
