// Row-panel planning: every needed row exactly once, aligned cuts, balanced work, strictUpper columns.

import { describe, expect, it } from 'vitest';
import type { PopcountGemmRequest } from '../../src/mgemm/index.js';
import { planRowPanels, type RowPanel } from '../../src/mgemm/kernels/wasm/gemmTask.js';

function requestOfShape(aCount: number, bCount: number, strictUpper: boolean): PopcountGemmRequest {
  const planes = { numVectors: Math.max(aCount, bCount), numPlanes: 2, wordsPerPlane: 8, words: new Uint32Array(0) };
  return { a: planes, aFirst: 0, aCount, b: planes, bFirst: 0, bCount, termGroups: [[[0, 0], [1, 1]]], strictUpper };
}

function panelWork(panel: RowPanel, bCount: number, strictUpper: boolean): number {
  let work = 0;
  for (let r = panel.rowBegin; r < panel.rowEnd; r++) work += strictUpper ? Math.max(0, bCount - 1 - r) : bCount;
  return work;
}

describe('planRowPanels', () => {
  it.each([
    { aCount: 1000, strictUpper: false, maxPanels: 2 },
    { aCount: 1000, strictUpper: true, maxPanels: 2 },
    { aCount: 2047, strictUpper: true, maxPanels: 7 },
    { aCount: 13, strictUpper: false, maxPanels: 16 },
  ])('covers rows contiguously with balanced work: $aCount rows, strictUpper $strictUpper, $maxPanels panels', (shape) => {
    const request = requestOfShape(shape.aCount, shape.aCount, shape.strictUpper);
    const panels = planRowPanels(request, { maxPanels: shape.maxPanels, rowAlign: 4, minWordOpsPerPanel: 0 });
    expect(panels.length).toBeLessThanOrEqual(shape.maxPanels);
    expect(panels[0].rowBegin).toBe(0);
    panels.slice(1).forEach((panel, p) => {
      expect(panel.rowBegin).toBe(panels[p].rowEnd);
      expect(panel.rowBegin % 4).toBe(0);
    });
    const lastNeededRow = shape.strictUpper ? shape.aCount - 2 : shape.aCount - 1;
    expect(panels[panels.length - 1].rowEnd).toBeGreaterThan(lastNeededRow);
    for (const panel of panels) expect(panel.colBegin).toBe(shape.strictUpper ? panel.rowBegin + 1 : 0);
    const works = panels.map((panel) => panelWork(panel, shape.aCount, shape.strictUpper));
    const mean = works.reduce((sum, work) => sum + work, 0) / panels.length;
    for (const work of works) expect(Math.abs(work - mean)).toBeLessThanOrEqual(4 * shape.aCount);
  });

  it('keeps small requests on one panel', () => {
    const panels = planRowPanels(requestOfShape(64, 64, false), { maxPanels: 8, rowAlign: 4, minWordOpsPerPanel: 1 << 21 });
    expect(panels).toEqual([{ rowBegin: 0, rowEnd: 64, colBegin: 0 }]);
  });

  it('plans nothing when nothing is needed', () => {
    expect(planRowPanels(requestOfShape(1, 1, true), { maxPanels: 2, rowAlign: 4, minWordOpsPerPanel: 0 })).toEqual([]);
    expect(planRowPanels(requestOfShape(0, 5, false), { maxPanels: 2, rowAlign: 4, minWordOpsPerPanel: 0 })).toEqual([]);
  });
});
