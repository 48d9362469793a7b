// Each sample's missing calls listed from rows in memory (sampleMajorChunks.ts missingCallsOfRange) against a naive
// scan of every code, for row lengths that are and are not whole words and rows that start anywhere in a word.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { missingCallsOfRange } from '../../src/io/sampleMajorChunks.js';

/** Per sample, the fields whose code (SPEC §1, 2 bits, field k at bits 2(k mod 4) of byte k/4) is 10. */
function naiveLists(rows: Uint8Array, numSample: number, bytesPerSample: number): number[][] {
  return Array.from({ length: numSample }, (_, s) => {
    const fields: number[] = [];
    for (let k = 0; k < 4 * bytesPerSample; k++) {
      if (((rows[s * bytesPerSample + (k >> 2)] >> (2 * (k & 3))) & 3) === 0b10) fields.push(k);
    }
    return fields;
  });
}

describe('missing calls of rows in memory', () => {
  for (const bytesPerSample of [1, 2, 3, 4, 5, 7, 13, 64, 67]) {
    it(`equal a naive scan at ${bytesPerSample} bytes a sample, in ranges of samples`, () => {
      const random = mulberry32(bytesPerSample);
      const numSample = 4 * 9;
      const rows = new Uint8Array(new SharedArrayBuffer(numSample * bytesPerSample));
      // About one code in six missing, and whole runs of missing or called codes.
      for (let b = 0; b < rows.length; b++) {
        const pick = random();
        rows[b] = pick < 0.1 ? 0xaa : pick < 0.4 ? 0x00 : Math.floor(random() * 256);
      }
      const layout = { target: { kind: 'memory' as const, rows }, bytesPerSample, numSample, bytesPerSnp: numSample / 4 };
      const expected = naiveLists(rows, numSample, bytesPerSample);
      for (const [byteFirst, byteEnd] of [[0, 9], [0, 1], [2, 7], [8, 9]] as const) {
        const lists = missingCallsOfRange(layout, { byteFirst, byteEnd });
        let at = 0;
        const got = Array.from(lists.counts, (count) => Array.from(lists.snps.subarray(at, (at += count))));
        expect(got).toEqual(expected.slice(4 * byteFirst, 4 * byteEnd));
      }
    });
  }
});
