// ClassOrder (io/classOrder.ts) against the plain reordering, code by code: random rows with random classes (controls,
// cases, missing phenotypes) over sample counts of every remainder mod 4, arbitrary pad codes in the source's last
// byte, and sources already in [controls | cases] order (the copy path); reorderRows, many rows in one call, likewise.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { ClassOrder } from '../../src/io/classOrder.js';
import { CLASS_CASE, CLASS_CONTROL, CLASS_MISSING } from '../../src/io/phenotypes.js';

/** The reordered row and its missing calls, moving one code at a time. */
function naiveReorder(packed: Uint8Array, classes: readonly number[]): { row: Uint8Array; numMissing: number } {
  const order: number[] = [];
  for (const wanted of [CLASS_CONTROL, CLASS_CASE]) classes.forEach((cls, s) => { if (cls === wanted) order.push(s); });
  const row = new Uint8Array(Math.ceil(order.length / 4));
  let numMissing = 0;
  order.forEach((s, k) => {
    const code = (packed[s >> 2] >> (2 * (s & 3))) & 3;
    if (code === 0b10) numMissing++;
    row[k >> 2] |= code << (2 * (k & 3));
  });
  return { row, numMissing };
}

describe('ClassOrder', () => {
  const random = mulberry32(11);
  const randomRow = (numSample: number): Uint8Array => Uint8Array.from({ length: Math.ceil(numSample / 4) }, () => Math.floor(random() * 256));

  it.each([1, 2, 3, 4, 5, 37, 130, 1001])('reorders %i samples as the code-by-code reordering does', (numSample) => {
    for (let trial = 0; trial < 20; trial++) {
      const missingRate = trial % 2 === 0 ? 0 : 0.2;
      const classes = Array.from({ length: numSample }, () =>
        (random() < missingRate ? CLASS_MISSING : random() < 0.5 ? CLASS_CONTROL : CLASS_CASE));
      const order = new ClassOrder(classes);
      const out = new Uint8Array(Math.ceil(numSample / 4)).fill(0xff);
      for (let r = 0; r < 5; r++) {
        const packed = randomRow(numSample);
        const want = naiveReorder(packed, classes);
        const numMissing = order.reorder(packed, out);
        expect(numMissing).toBe(want.numMissing);
        expect(out.subarray(0, want.row.length)).toEqual(want.row);
      }
    }
  });

  it.each([1, 2, 3, 4, 5, 37, 130, 1001])('reorderRows: %i samples, rows one after another, as reorder row by row', (numSample) => {
    for (const layout of ['random', 'in order']) {
      const classes = Array.from({ length: numSample }, (_, s) => (layout === 'in order' ? (s < numSample / 3 ? CLASS_CONTROL : CLASS_CASE)
        : random() < 0.15 ? CLASS_MISSING : random() < 0.5 ? CLASS_CONTROL : CLASS_CASE));
      const order = new ClassOrder(classes);
      const bytesIn = Math.ceil(numSample / 4);
      const bytesOut = Math.ceil(order.numKept / 4);
      const numRows = 23;
      // Random bytes, the source rows' pad codes included; the output starts dirty.
      const rows = Uint8Array.from({ length: numRows * bytesIn }, () => Math.floor(random() * 256));
      const want = new Uint8Array(numRows * bytesOut);
      for (let r = 0; r < numRows; r++) want.set(naiveReorder(rows.subarray(r * bytesIn, (r + 1) * bytesIn), classes).row, r * bytesOut);
      const out = new Uint8Array(numRows * bytesOut + 3).fill(0xff);
      order.reorderRows(rows, numRows, out);
      expect(out.subarray(0, want.length)).toEqual(want);
      expect([...out.subarray(want.length)]).toEqual([0xff, 0xff, 0xff]);
    }
  });

  it('copies rows already in order, clearing the source\'s pad codes', () => {
    for (const numSample of [8, 9, 10, 11]) {
      const numControls = 3;
      const classes = Array.from({ length: numSample }, (_, s) => (s < numControls ? CLASS_CONTROL : CLASS_CASE));
      const packed = randomRow(numSample);
      // Pad codes 10 (missing) must not count.
      if (numSample % 4 !== 0) packed[packed.length - 1] |= 0b10101010 & ~((1 << (2 * (numSample % 4))) - 1);
      const out = new Uint8Array(Math.ceil(numSample / 4));
      const want = naiveReorder(packed, classes);
      expect(new ClassOrder(classes).reorder(packed, out)).toBe(want.numMissing);
      expect(out).toEqual(want.row);
    }
  });
});
