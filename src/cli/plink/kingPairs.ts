// The pairs of a `--metric king` run as plink2's table needs them: each pair's exact counts from its four records
// (analyses/king: hethet, het-hom, hom-het, ibs0, each a float32 count · 2^-22), put in plink2's order (the later
// sample first, then the earlier). NSNP comes from the run's sample-missing file (kingReport.ts).
import { KING_COUNT_SCALE, KING_ENTRY } from '../../analyses/king/index.js';
import { coordEntryBit, coordVectorIndex, readMetricsFileChunks, RowSorter } from '../../io/index.js';

/** Words of a sorted pair row: ID1 (the later sample), ID2, hethet, het1Hom2, hom1Het2, ibs0. */
export const PAIR_ROW_WORDS = 6;

/**
 * Reads the run's record files into a sorter of pair rows (PAIR_ROW_WORDS words each, keyed by ID1 then ID2: plink2's
 * line order). @throws Error when a pair's four records are not together (not a KING run's files).
 */
export function sortedKingPairs(recordFiles: readonly string[], scratchParent: string): RowSorter {
  const sorter = new RowSorter({ rowWords: PAIR_ROW_WORDS, numKeyWords: 2, scratchParent });
  const row = new Uint32Array(PAIR_ROW_WORDS);
  const count = new Float64Array(4);
  for (const file of recordFiles) {
    let pending = 0;
    let first = -1, second = -1;
    for (const chunk of readMetricsFileChunks(file, 2)) {
      for (let r = 0; r < chunk.numRecords; r++) {
        const a = chunk.coords[2 * r];
        const b = chunk.coords[2 * r + 1];
        const entry = 2 * coordEntryBit(a) + coordEntryBit(b);
        if (entry !== pending) throw new Error(`${file}: record ${r} is entry ${entry} of its pair, not ${pending} (not a KING run's records)`);
        if (pending === 0) {
          first = coordVectorIndex(a);
          second = coordVectorIndex(b);
        } else if (coordVectorIndex(a) !== first || coordVectorIndex(b) !== second) {
          throw new Error(`${file}: record ${r} is not of the pair of the records before it`);
        }
        count[entry] = Math.round(chunk.values[r] / KING_COUNT_SCALE);
        if (++pending < 4) continue;
        pending = 0;
        // Entry hetHom is (first het, second hom); ID1 is the later sample.
        const firstIsId1 = first > second;
        row[0] = firstIsId1 ? first : second;
        row[1] = firstIsId1 ? second : first;
        row[2] = count[KING_ENTRY.hethet];
        row[3] = firstIsId1 ? count[KING_ENTRY.hetHom] : count[KING_ENTRY.homHet];
        row[4] = firstIsId1 ? count[KING_ENTRY.homHet] : count[KING_ENTRY.hetHom];
        row[5] = count[KING_ENTRY.ibs0];
        sorter.add(row);
      }
    }
    if (pending !== 0) throw new Error(`${file}: its last pair has ${pending} of its 4 records`);
  }
  return sorter;
}
