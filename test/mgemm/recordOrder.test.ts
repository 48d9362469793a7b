// 3-way device-finalize records in key order (mgemm/kernels/webgpu/recordOrder.ts) against a plain sort, and in file
// layout against the key's definition.
import { describe, expect, it } from 'vitest';
import { ownRecordsInKeyOrder, tripleCoordinateRecords, type TripleSliceCoordinates } from '../../src/mgemm/kernels/webgpu/finalize/recordOrder.js';
import { RecordOrderPool } from '../../src/mgemm/kernels/webgpu/finalize/recordOrderPool.js';

/** Records (value bits, key) with distinct keys below `keyBound`, in a shuffled order. */
function shuffledRecords(count: number, keyBound: number, seed: number): Uint32Array {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  const keys = new Set<number>();
  while (keys.size < count) keys.add(next() % keyBound);
  const words = new Uint32Array(2 * count);
  let n = 0;
  for (const key of keys) {
    words[2 * n] = next();
    words[2 * n + 1] = key;
    n++;
  }
  return words;
}

/** The reference: records as [bits, key] sorted by key with Array.prototype.sort. */
function referenceOrder(words: Uint32Array, count: number): number[] {
  const records = Array.from({ length: count }, (_, n) => [words[2 * n], words[2 * n + 1]]);
  records.sort((x, y) => x[1] - y[1]);
  return records.flat();
}

describe('ownRecordsInKeyOrder', () => {
  const cases: [string, number, number][] = [
    ['keys below 2^12 (placed by key: one in 1.4 keys holds a record)', 3000, 1 << 12],
    ['keys below 2^20 (placed by key: one in 5)', 200_000, 1 << 20],
    ['keys below 2^16 (radix, one pass: one in 11)', 6000, 1 << 16],
    ['keys below 2^24 (radix, two passes)', 50_000, 1 << 24],
    ['keys up to 2^32 − 1 (three passes)', 20_000, 2 ** 32],
    ['one record', 1, 1000],
  ];
  for (const [name, count, keyBound] of cases) {
    it(`orders ${count} records by key, ${name}`, () => {
      const words = shuffledRecords(count, keyBound, count + 17);
      const expected = referenceOrder(words, count);
      expect(Array.from(ownRecordsInKeyOrder(words, count))).toEqual(expected);
    });
  }

  it('takes only the first count records', () => {
    const words = new Uint32Array([7, 1, 8, 5, 9, 9, 0xdeadbeef, 0]);
    expect(Array.from(ownRecordsInKeyOrder(words.slice(), 3))).toEqual([7, 1, 8, 5, 9, 9]);
    expect(Array.from(ownRecordsInKeyOrder(new Uint32Array([3, 9, 4, 2, 0, 0]), 2))).toEqual([4, 2, 3, 9]);
    expect(ownRecordsInKeyOrder(words, 0)).toHaveLength(0);
  });

  it('refuses records that repeat a key rather than drop one', () => {
    const words = shuffledRecords(1000, 2000, 3);
    words[2 * 500 + 1] = words[2 * 10 + 1];
    expect(() => ownRecordsInKeyOrder(words, 1000)).toThrow('1 of 1000 records repeat another record\'s key');
  });

  it('keeps value bits that read as NaN payloads intact', () => {
    const words = new Uint32Array([0x7fc00001, 3, 0xffffffff, 1, 0x7f800001, 2]);
    expect(Array.from(ownRecordsInKeyOrder(words, 3))).toEqual([0xffffffff, 1, 0x7f800001, 2, 0x7fc00001, 3]);
  });
});

/** Slices of a request with an empty one among them, as a batch of j-slices has. */
const SLICES: readonly TripleSliceCoordinates[] = [
  { iRecordFirst: 2 * 100, jRecord: 2 * 900, kRecordFirst: 2 * 40, coordinateStep: 2, xCount: 300, zCount: 500 },
  { iRecordFirst: 2 * 100, jRecord: 2 * 901, kRecordFirst: 2 * 41, coordinateStep: 2, xCount: 0, zCount: 499 },
  { iRecordFirst: 2 * 7, jRecord: 2 * 902, kRecordFirst: 2 * 42, coordinateStep: 2, xCount: 290, zCount: 480 },
  { iRecordFirst: 2 * 7, jRecord: 2 * 903, kRecordFirst: 0, coordinateStep: 2, xCount: 28, zCount: 1 },
];
const SLICE_TRIPLES = SLICES.reduce((sum, s) => sum + s.xCount * s.zCount, 0);

/** File-layout records of ordered (value bits, key) records, from the key's definition (a search and division a record). */
function referenceTripleCoordinates(ordered: readonly number[], slices: readonly TripleSliceCoordinates[]): number[] {
  const out: number[] = [];
  for (let n = 0; n < ordered.length / 2; n++) {
    const key = ordered[2 * n + 1];
    let triple = Math.floor(key / 8);
    let s = 0;
    while (triple >= slices[s].xCount * slices[s].zCount) {
      triple -= slices[s].xCount * slices[s].zCount;
      s++;
    }
    const r = Math.floor(triple / slices[s].zCount);
    const c = triple % slices[s].zCount;
    out.push(slices[s].iRecordFirst + 2 * r + ((key >> 2) & 1), slices[s].jRecord + ((key >> 1) & 1), slices[s].kRecordFirst + 2 * c + (key & 1), ordered[2 * n]);
  }
  return out;
}

describe('tripleCoordinateRecords', () => {
  it('gives each record its i, j and k coordinates 2·v + bit and its value, across slices (an empty one among them)', () => {
    const words = shuffledRecords(20_000, 8 * SLICE_TRIPLES, 31);
    const ordered = referenceOrder(words, 20_000);
    expect(Array.from(tripleCoordinateRecords(Uint32Array.from(ordered), 20_000, SLICES))).toEqual(referenceTripleCoordinates(ordered, SLICES));
  });

  it('refuses a key past the request\'s slices', () => {
    expect(() => tripleCoordinateRecords(new Uint32Array([5, 8 * SLICE_TRIPLES]), 1, SLICES)).toThrow(RangeError);
  });
});

describe('RecordOrderPool', () => {
  it('orders requests in worker threads (the smallest on the main thread), several at once, into file layout', async () => {
    const pool = new RecordOrderPool();
    try {
      const requests = [200_000, 70_000, 1000, 150_000].map((count, n) => ({ count, words: shuffledRecords(count, 8 * SLICE_TRIPLES, 5 + n) }));
      const expected = requests.map(({ words, count }) => referenceTripleCoordinates(referenceOrder(words, count), SLICES));
      // The first is exactly its records (handed over), the others views of longer arrays (copied).
      const given = requests.map(({ words, count }, n) => (n === 0 ? words : Uint32Array.from([...words, 1, 2]).subarray(0, 2 * count)));
      const ordered = await Promise.all(given.map((words, n) => pool.order(words, requests[n].count, SLICES)));
      ordered.forEach((words, n) => expect(Array.from(words)).toEqual(expected[n]));
    } finally {
      await pool.close();
    }
  });
});
