// The epistasis command's tables of its top tuples straight from the packed genotypes (cli/epistasis/tupleTables.ts):
// per sample, the cell of its genotypes (the first SNP slowest) in its class, samples missing at any SNP of the tuple
// left out, code 10 a missing call only when the data may have them — against a count sample by sample from the codes,
// on ragged sample counts (the last packed byte's unused fields) and tuples of 1 to 4 SNPs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packFieldValues, writePackedVectorFile } from '../../src/io/packedVectorFile.js';
import { GenotypeRows, tupleTable, type PackedGenotypes } from '../../src/cli/epistasis/tupleTables.js';

const NUM_SNP = 6;
const NUM_FIELD = 203;
const NUM_CONTROLS = 77;
const dir = mkdtempSync(join(tmpdir(), 'tuple-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fixed pseudo-random 2-bit code of SNP v, sample f, with every code (10 included) present. */
const codeOf = (v: number, f: number): number => (((v + 1) * 2654435761 + f * 40503) >>> 13) & 3;

/** The table by definition: sample by sample, code by code. */
function naiveTable(tuple: readonly number[], sparse: boolean): { controls: number[]; cases: number[] } {
  const numCell = 3 ** tuple.length;
  const controls = new Array<number>(numCell).fill(0);
  const cases = new Array<number>(numCell).fill(0);
  for (let f = 0; f < NUM_FIELD; f++) {
    let cell = 0;
    let missing = false;
    for (const v of tuple) {
      const code = codeOf(v, f);
      if (code === 0b10 && sparse) missing = true;
      cell = 3 * cell + (code === 0b00 ? 0 : code === 0b11 ? 2 : 1);
    }
    if (!missing) (f < NUM_CONTROLS ? controls : cases)[cell]++;
  }
  return { controls, cases };
}

describe('tupleTable', () => {
  const path = join(dir, 'g.packed');
  const packed = packFieldValues(NUM_SNP, NUM_FIELD, codeOf);
  writePackedVectorFile(path, packed, NUM_SNP, NUM_FIELD);
  const TUPLES = [[4], [0, 5], [5, 0], [1, 2, 3], [2, 2], [0, 3, 4, 5]];
  // The same vectors in a file and in shared memory (an input prepared into memory).
  const shared = new Uint8Array(new SharedArrayBuffer(packed.length));
  shared.set(packed);
  const sources: readonly PackedGenotypes[] = [{ kind: 'file', path }, { kind: 'memory', packed: shared }];
  for (const [sparse, source] of [false, true].flatMap((s) => sources.map((source) => [s, source] as const))) {
    it(`counts every sample's cell in its class (missing calls: ${sparse}, vectors in ${source.kind})`, () => {
      const rows = new GenotypeRows(source, NUM_FIELD, sparse);
      for (const tuple of TUPLES) {
        const table = tupleTable(rows, tuple, NUM_CONTROLS, NUM_FIELD);
        expect(table, `tuple ${tuple.join(',')}`).toEqual(naiveTable(tuple, sparse));
        const total = table.controls.reduce((a, b) => a + b, 0) + table.cases.reduce((a, b) => a + b, 0);
        // Without missing calls every sample counts once; with them, some are left out.
        if (sparse) expect(total).toBeLessThan(NUM_FIELD);
        else expect(total).toBe(NUM_FIELD);
      }
    });
  }
});
