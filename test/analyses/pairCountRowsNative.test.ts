// The native finalize of pair-count rows (analyses/nativePairCounts.ts, native/pairCounts/) against the JS path
// (pairCountRows.ts with the analysis's row function, EntrySink.addPairCountRow): for KING and both distances, on random
// tallies (zeros, counts up to 2^24 − 1, −inf and NaN kinships), the same checksum (sum, entries, zeros) and every pair's
// value in a dense panel, on diagonal tiles (strictUpper, rows and columns starting anywhere), off-diagonal panels whose
// columns precede or follow the rows (both runs of the checksum's uids) and ragged blocks (padded rows and columns);
// a count out of range goes to the JS path, which refuses it; a sink with records keeps the JS path.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { ChecksumAccumulator } from '../../src/core/checksum.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import type { PairBlock, VectorBlockView } from '../../src/analyses/analysis.js';
import type { PairValueRows } from '../../src/analyses/pairCountRows.js';
import { finalizeKingPairs } from '../../src/analyses/king/kingCounts.js';
import { alleleCountDistance, finalizeDistancePairs, squaredDistance } from '../../src/analyses/distance/ibsCounts.js';
import { loadNativePairCountAddon } from '../../src/analyses/nativePairCounts.js';
import { EntrySink, type RecordWriter } from '../../src/engine/finalize/entrySink.js';
import { PanelValueCapture, type PanelValueTarget } from '../../src/engine/finalize/panelValues.js';
import type { FinalizeContext } from '../../src/analyses/index.js';

const native = loadNativePairCountAddon();
// Where the addon is built (x86-64 with a compiler, `npm run build`), these tests need it; elsewhere the JS path runs.
if (process.arch === 'x64' && !native.available) throw new Error(`on x86-64 the native pair-count finalize must be built: ${native.reason}`);

type Finalize = (ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]) => number;

/** The analyses: their finalize and their tally groups from a random pair (KING's four, the distances' two). */
const ANALYSES: readonly { readonly name: string; readonly finalize: Finalize; readonly tallies: (random: () => number) => number[] }[] = [
  {
    name: 'KING', finalize: finalizeKingPairs,
    // hethet, ibs0, het·present = hethet + hetHom, present·het = hethet + homHet; zeros make −inf and NaN kinships.
    tallies: (random) => {
      const count = (): number => (random() < 0.15 ? 0 : random() < 0.05 ? Math.floor(random() * 2 ** 22) : Math.floor(random() * 3000));
      const [hethet, ibs0, hetHom, homHet] = [count(), count(), count(), count()];
      return [hethet, ibs0, hethet + hetHom, hethet + homHet];
    },
  },
  ...([['distance', alleleCountDistance], ['sqdist', squaredDistance]] as const).map(([name, distanceOf]) => ({
    name, finalize: finalizeDistancePairs(distanceOf, name === 'distance' ? 'allele-distance' : 'squared-distance'),
    // ibs1, ibs0: the allele-count distance ibs1 + 2·ibs0 stays below 2^24 (a distance's largest field count).
    tallies: (random: () => number) => [random() < 0.1 ? 0 : Math.floor(random() * 2 ** 22), random() < 0.1 ? 0 : Math.floor(random() * 2 ** 22)],
  })),
];

/** A panel: rows [rowFirst, +numRows) of a block of `rowVectors` × cols of the same block (diagonal) or another. */
interface PanelCase {
  readonly name: string;
  readonly numVector: number;
  readonly rows: { readonly vectorFirst: number; readonly numVectorReal: number };
  /** null: the row block itself (a diagonal tile, strictUpper). */
  readonly cols: { readonly vectorFirst: number; readonly numVectorReal: number } | null;
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
}

const CASES: readonly PanelCase[] = [
  { name: 'a diagonal tile from row 0', numVector: 300, rows: { vectorFirst: 0, numVectorReal: 90 }, cols: null, rowFirst: 0, numRows: 90, colFirst: 0, numCols: 90 },
  { name: 'a diagonal tile of a later block, rows 13– against cols 5–, padded rows and cols', numVector: 300, rows: { vectorFirst: 100, numVectorReal: 77 }, cols: null, rowFirst: 13, numRows: 72, colFirst: 5, numCols: 80 },
  { name: 'columns after the rows (uids of the right run)', numVector: 500, rows: { vectorFirst: 40, numVectorReal: 61 }, cols: { vectorFirst: 300, numVectorReal: 150 }, rowFirst: 3, numRows: 60, colFirst: 7, numCols: 150 },
  { name: 'columns before the rows (uids of the left run), ragged', numVector: 500, rows: { vectorFirst: 350, numVectorReal: 50 }, cols: { vectorFirst: 10, numVectorReal: 101 }, rowFirst: 0, numRows: 56, colFirst: 1, numCols: 104 },
];

/** The case's block of pairs, with no planes (pair-count finalize reads only tallies). */
function blockOf(c: PanelCase): PairBlock {
  const view = (b: { vectorFirst: number; numVectorReal: number }): VectorBlockView => ({
    blockIdx: 0, vectorFirst: b.vectorFirst, numVectorReal: b.numVectorReal,
    planes: { words: new Uint32Array(0), numVectors: b.numVectorReal, numPlanes: 0, wordsPerPlane: 0 } as unknown as VectorBlockView['planes'],
    sums: new Float64Array(0), counts: new Float64Array(0),
  });
  const rows = view(c.rows);
  return { rows, rowFirst: c.rowFirst, numRows: c.numRows, cols: c.cols === null ? rows : view(c.cols), colFirst: c.colFirst, numCols: c.numCols, strictUpper: c.cols === null };
}

/** The panel's values (NaN where no pair was given one; compared with Object.is, so NaN, −inf and −0 count). */
function targetOf(block: PairBlock): PanelValueTarget {
  return {
    values: new Float64Array(block.numRows * block.numCols).fill(-1234.5), numCols: block.numCols,
    rowVector: block.rows.vectorFirst + block.rowFirst, colVector: block.cols.vectorFirst + block.colFirst,
  };
}

/** The same sink without pairValueRows: the JS path. */
class JsPathCapture extends PanelValueCapture {
  override get pairValueRows(): PairValueRows | null {
    return null;
  }
}

function checksumState(checksum: ChecksumAccumulator): { sum: bigint; entries: number; zeros: number } {
  return { sum: checksum.sum(), entries: checksum.entries, zeros: checksum.zeros };
}

describe.skipIf(!native.available)('native pair-count finalize', () => {
  for (const analysis of ANALYSES) {
    for (const [k, c] of CASES.entries()) {
      it(`${analysis.name}, ${c.name}: the JS path's checksum and values`, () => {
        const block = blockOf(c);
        const random = mulberry32(100 * k + analysis.name.length);
        const numGroups = analysis.name === 'KING' ? 4 : 2;
        const tallies = Array.from({ length: numGroups }, () => new Uint32Array(c.numRows * c.numCols));
        for (let t = 0; t < c.numRows * c.numCols; t++) analysis.tallies(random).forEach((value, g) => { tallies[g][t] = value; });
        const nativeSink = new EntrySink(c.numVector, 2, { kind: 'none' }, null);
        const jsSink = new EntrySink(c.numVector, 2, { kind: 'none' }, null);
        const [nativeTarget, jsTarget] = [targetOf(block), targetOf(block)];
        const nativeCapture = new PanelValueCapture(nativeSink, nativeTarget);
        expect(nativeCapture.pairValueRows).not.toBe(null);
        const numPairs = analysis.finalize({ sink: nativeCapture, verifier: null }, block, tallies);
        expect(analysis.finalize({ sink: new JsPathCapture(jsSink, jsTarget), verifier: null }, block, tallies)).toBe(numPairs);
        expect(numPairs).toBeGreaterThan(0);
        expect(checksumState(nativeSink.checksum)).toEqual(checksumState(jsSink.checksum));
        expect(nativeSink.checksum.entries).toBe(4 * numPairs);
        expect(Array.from(nativeTarget.values)).toEqual(Array.from(jsTarget.values));
      });
    }
  }

  it('a count out of range goes to the JS path, which refuses it; with records the JS path runs', () => {
    const c = CASES[2];
    const block = blockOf(c);
    // KING's het·present below hethet: a negative het–hom count.
    const tallies = [new Uint32Array(c.numRows * c.numCols).fill(5), new Uint32Array(c.numRows * c.numCols), new Uint32Array(c.numRows * c.numCols).fill(3), new Uint32Array(c.numRows * c.numCols).fill(9)];
    const sink = new PanelValueCapture(new EntrySink(c.numVector, 2, { kind: 'none' }, null), targetOf(block));
    expect(() => finalizeKingPairs({ sink, verifier: null }, block, tallies)).toThrow(UserError);
    // A sink that writes records offers no value rows: the JS path (its counts become records).
    const writer: RecordWriter = { appendRecordWords: () => undefined };
    expect(new EntrySink(c.numVector, 2, { kind: 'none' }, writer).pairValueRows).toBe(null);
  });
});
