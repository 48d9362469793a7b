// EntrySink.addTupleValueRow with a top-N writer: the writer's bar drops weaker records before they are buffered, and
// the kept records and the checksum are those of a sink that keeps every record (ties at the bar included).
import { describe, expect, it } from 'vitest';
import { EntrySink, type RecordWriter } from '../../src/engine/finalize/entrySink.js';
import { TopRecords } from '../../src/engine/finalize/topRecordsSink.js';
import { seededRandom } from '../mgemm/planeFixtures.js';

const NUM_VECTOR = 300;
const NONE = { kind: 'none' } as const;

/** Every record a sink hands on. */
class AllRecords implements RecordWriter {
  readonly words: number[] = [];
  appendRecordWords(words: Uint32Array, numRecords: number): void {
    for (let w = 0; w < 3 * numRecords; w++) this.words.push(words[w]);
  }
}

/** Rows (i, j > i) of one value per pair: few distinct float32 values, so that ties cross the bar. */
function feed(sink: EntrySink, stronger: 'larger' | 'smaller'): void {
  const random = seededRandom(stronger === 'larger' ? 5 : 6);
  for (let i = 0; i < NUM_VECTOR - 1; i++) {
    const count = NUM_VECTOR - 1 - i;
    const values = Float64Array.from({ length: count }, () => Math.floor(random() * 200) / 16 + 0.001);
    sink.addTupleValueRow({ i, j: null, first: i + 1, count }, values);
  }
  sink.flush();
}

describe('addTupleValueRow under a top-N bar', () => {
  for (const stronger of ['larger', 'smaller'] as const) {
    it(`keeps the N strongest of all records exactly, and every value's checksum (${stronger} is stronger)`, () => {
      const count = 57;
      const top = new TopRecords(2, { count, stronger });
      const all = new AllRecords();
      const barred = new EntrySink(NUM_VECTOR, 2, NONE, top);
      const plain = new EntrySink(NUM_VECTOR, 2, NONE, all);
      feed(barred, stronger);
      feed(plain, stronger);
      const reference = new TopRecords(2, { count, stronger });
      reference.appendRecordWords(Uint32Array.from(all.words), all.words.length / 3);
      expect(Array.from(top.take().words)).toEqual(Array.from(reference.take().words));
      expect(barred.checksum.limbs).toEqual(plain.checksum.limbs);
      expect(barred.checksum.entries).toBe((NUM_VECTOR * (NUM_VECTOR - 1)) / 2);
    });
  }
});
