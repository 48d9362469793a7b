// The allocation-free port of plink_ld.c's em_phase_hethet (twoLocusLd.ts haplotypeLd) against the previous,
// allocating port kept verbatim in test/helpers/twoLocusLdReference.ts: the same doubles, bit for bit, on many 3×3
// tables of every shape (monomorphic SNPs, no double heterozygotes, only them, boundary roots, large counts).
import { describe, expect, it } from 'vitest';
import { haplotypeLd, type DprimeKind } from '../../src/cli/plink/twoLocusLd.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { referenceHaplotypeLd } from '../helpers/twoLocusLdReference.js';

/** Random tables: cell counts from a few shapes (sparse small counts reach the cubic's edge cases). */
function randomTables(count: number, seed: number): Float64Array[] {
  const random = mulberry32(seed);
  const tables: Float64Array[] = [];
  for (let t = 0; t < count; t++) {
    const shape = t % 7;
    const table = new Float64Array(9);
    for (let k = 0; k < 9; k++) {
      if (shape === 0) table[k] = random() < 0.5 ? 0 : Math.floor(random() * 4);
      else if (shape === 1) table[k] = Math.floor(random() * 2000);
      else if (shape === 2) table[k] = k === 4 ? 1 + Math.floor(random() * 50) : random() < 0.7 ? 0 : Math.floor(random() * 5);
      else if (shape === 3) table[k] = [0, 2, 6, 8].includes(k) ? Math.floor(random() * 30) : random() < 0.2 ? Math.floor(random() * 3) : 0;
      // No phase-known 1-1 or 1-2 haplotypes beside the double heterozygotes (both products 0: no cubic).
      else if (shape === 5) table[k] = k === 4 ? 1 + Math.floor(random() * 20) : [0, 1, 2].includes(k) ? Math.floor(random() * 6) : 0;
      else if (shape === 6) table[k] = k === 4 ? 1 + Math.floor(random() * 20) : [0, 3, 6].includes(k) && random() < 0.6 ? Math.floor(random() * 6) : 0;
      else table[k] = Math.floor(random() * 40);
    }
    tables.push(table);
  }
  return tables;
}

describe('haplotypeLd without allocations', () => {
  for (const kind of ['d', 'dprime', 'dprime-signed'] as DprimeKind[]) {
    it(`equals the previous port bit for bit on 100,000 tables: ${kind}`, () => {
      let numDefined = 0;
      for (const table of randomTables(100_000, kind.length)) {
        const ours = haplotypeLd(table, kind);
        const theirs = referenceHaplotypeLd(table, kind);
        if (!Object.is(ours.signedR2, theirs.signedR2) || !Object.is(ours.extra, theirs.extra)) {
          expect({ table: [...table], ...ours }).toEqual({ table: [...table], ...theirs });
        }
        if (!Number.isNaN(ours.signedR2)) numDefined++;
      }
      expect(numDefined).toBeGreaterThan(70_000);
    });
  }
});
