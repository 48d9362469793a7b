// Epistasis's fused dense bands (nativeDensePairs.ts finalizeDenseBandNatively, native/src/denseBand.cc: tallies by
// popcounts on the planes and scores in one call) against the JS path on tallies counted from the definition
// (naiveTallies, epistasisPairs.ts DensePairScorer, EntrySink.addTupleValueRow): every pair's value bits (each pair a
// record), the checksum, records past a threshold and top-N lists, for K2, MI and IG, by the AVX-512 tallies and by the
// 64-bit ones — on bands of several panels (a diagonal panel's rows cut as the pipeline cuts them, ragged rows and
// columns, strips of fewer rows than a tile), classes whose boundary falls inside a 64-bit word, tiny, empty and large
// classes, column SNPs before the row SNPs (cells transposed).
import { describe, expect, it } from 'vitest';
import { BlockGenotypeCounts, finalizeEpistasisPairs } from '../../../src/analyses/epistasis/epistasisFinalize.js';
import type { EpistasisFinalizeSettings } from '../../../src/analyses/epistasis/epistasisPairs.js';
import { classWordRanges, pairTermGroups, planeOf } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { ScoreTables } from '../../../src/analyses/epistasis/epistasisScores.js';
import { finalizeDenseBandNatively } from '../../../src/analyses/epistasis/nativeDensePairs.js';
import { loadNativePairScorer } from '../../../src/analyses/epistasis/native/nativePairScores.js';
import { analysis as epistasis } from '../../../src/analyses/epistasis/index.js';
import type { PairBlock, VectorBlockView } from '../../../src/analyses/analysis.js';
import { EntrySink, type RecordWriter } from '../../../src/engine/finalize/entrySink.js';
import { HistogramCounter } from '../../../src/engine/finalize/histogramSink.js';
import { TopRecords } from '../../../src/engine/finalize/topRecordsSink.js';
import { rowBandsOf } from '../../../src/engine/pipeline/windowBands.js';
import { singleThreshold, type Threshold } from '../../../src/core/thresholds.js';
import { DEFAULT_PARAM, type EpistasisScore } from '../../../src/core/types.js';
import { blockOf, naiveTallies, planesOf, randomGenotypes, seeded } from './epistasisBlocks.js';

const native = loadNativePairScorer();
if (process.arch === 'x64' && !native.available) throw new Error(`on x86-64 the native epistasis scorer must be built: ${native.reason}`);
const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];

/** A band: its blocks (the columns' after the rows', or before them; 0 columns: one block) and its panels' geometry. */
interface BandCase {
  readonly name: string;
  readonly numControls: number;
  readonly numCases: number;
  readonly numRowVectors: number;
  readonly numColVectors: number;
  readonly colsFirst?: boolean;
  /** rowFirst, numRows, colFirst, numCols of each panel (strictUpper when one block). */
  readonly panels: readonly (readonly [number, number, number, number])[];
  /** Cut each panel's rows into bands of about this many pairs, as the pipeline does (rowBandsOf), one call each. */
  readonly bandPairs?: number;
  readonly seed: number;
}

const CASES: readonly BandCase[] = [
  { name: 'one block, a diagonal panel cut into row bands and the panel right of it', numControls: 150, numCases: 183, numRowVectors: 70, numColVectors: 0,
    panels: [[0, 40, 0, 40], [0, 40, 40, 30], [40, 30, 40, 30]], bandPairs: 200, seed: 1 },
  { name: 'two blocks, rows before cols, ragged (padded rows and columns), 97 + 64 samples', numControls: 97, numCases: 64, numRowVectors: 30, numColVectors: 33,
    panels: [[2, 31, 1, 35], [0, 2, 0, 36]], seed: 2 },
  { name: 'two blocks, cols before rows (transposed cells), 7-row strips', numControls: 201, numCases: 160, numRowVectors: 23, numColVectors: 18, colsFirst: true,
    panels: [[0, 23, 0, 18]], bandPairs: 7 * 18, seed: 3 },
  { name: 'large classes, 9000 + 11001 samples', numControls: 9000, numCases: 11001, numRowVectors: 13, numColVectors: 17, panels: [[0, 13, 0, 17]], seed: 4 },
  { name: 'tiny classes, 5 + 40 samples, one block', numControls: 5, numCases: 40, numRowVectors: 20, numColVectors: 0, panels: [[1, 19, 1, 19]], seed: 5 },
  { name: 'an empty class: no control and 70 cases', numControls: 0, numCases: 70, numRowVectors: 25, numColVectors: 0, panels: [[0, 25, 0, 25]], seed: 6 },
  { name: 'no case, 64 controls (a class boundary on a 64-bit word)', numControls: 64, numCases: 0, numRowVectors: 9, numColVectors: 12, panels: [[0, 9, 0, 12]], seed: 7 },
];

function settingsOf(c: BandCase, score: EpistasisScore): EpistasisFinalizeSettings {
  const numField = c.numControls + c.numCases;
  return {
    score, sparse: false, classSizes: [c.numControls, c.numCases], tables: new ScoreTables(numField + 27),
    classWords: classWordRanges(c.numControls, numField), densePairScorer: 'js',
  };
}

/** Padding vectors of a block, as blocks have them (a kernel's row alignment): random planes, never scored. */
const NUM_PADDING = 4;

/** A block of `numReal` random SNPs and NUM_PADDING more. */
function paddedBlock(c: BandCase, random: () => number, numReal: number, vectorFirst: number): VectorBlockView {
  const planes = planesOf(randomGenotypes(random, numReal + NUM_PADDING, c.numControls + c.numCases, 0), c.numControls);
  return { ...blockOf(planes, vectorFirst), numVectorReal: numReal };
}

/** The case's blocks (global vectors from 3, 2 unused vectors between them) and the run's vector count. */
function blocksOf(c: BandCase): { rows: VectorBlockView; cols: VectorBlockView; numVector: number } {
  const random = seeded(c.seed);
  const numVector = 3 + c.numRowVectors + 2 + c.numColVectors + 3;
  const rows = paddedBlock(c, random, c.numRowVectors, c.colsFirst === true ? 3 + c.numColVectors + 2 : 3);
  if (c.numColVectors === 0) return { rows, cols: rows, numVector };
  return { rows, cols: { ...paddedBlock(c, random, c.numColVectors, c.colsFirst === true ? 3 : 3 + c.numRowVectors + 2), blockIdx: 1 }, numVector };
}

/** The case's bands: each panel, or its rows cut as the pipeline cuts them. */
async function bandsOf(c: BandCase, rows: VectorBlockView, cols: VectorBlockView): Promise<PairBlock[][]> {
  const panels = c.panels.map(([rowFirst, numRows, colFirst, numCols]): PairBlock => ({ rows, rowFirst, numRows, cols, colFirst, numCols, strictUpper: rows === cols }));
  if (c.bandPairs === undefined) return [panels];
  async function* each(): AsyncGenerator<{ block: PairBlock }> {
    for (const block of panels) yield { block };
  }
  const bands: PairBlock[][] = [];
  for await (const band of rowBandsOf(each(), c.bandPairs)) bands.push(band);
  return bands;
}

/** Every record a sink hands its writer, in order. */
class CollectedRecords implements RecordWriter {
  readonly words: number[] = [];
  appendRecordWords(words: Uint32Array, numRecords: number): void {
    this.words.push(...words.subarray(0, 3 * numRecords));
  }
}

type Path = 'js' | 'avx512' | 'scalar';

/** The case's bands finalized on `path` into a fresh sink with `writer`: the sink and its pairs. */
async function finalizedOn<W extends RecordWriter>(c: BandCase, path: Path, score: EpistasisScore, threshold: Threshold, writer: W) {
  const { rows, cols, numVector } = blocksOf(c);
  const settings = settingsOf(c, score);
  const counts = new BlockGenotypeCounts(settings);
  const sink = new EntrySink(numVector, 2, threshold, writer);
  let numPairs = 0;
  for (const band of await bandsOf(c, rows, cols)) {
    if (path === 'js') {
      for (const panel of band) numPairs += finalizeEpistasisPairs(settings, { sink, verifier: null }, panel, naiveTallies(panel, pairTermGroups(false)), counts);
      continue;
    }
    const geometry = band.map(({ rowFirst, numRows, colFirst, numCols, strictUpper }) => ({ rowFirst, numRows, colFirst, numCols, strictUpper }));
    const done = finalizeDenseBandNatively(settings, { sink, verifier: null }, { rows, cols, panels: geometry }, { scalar: path === 'scalar' });
    if (done === null) throw new Error('the band was refused');
    numPairs += done;
  }
  sink.flush();
  return { sink, writer, numPairs };
}

const nativePaths: readonly Path[] = native.available && native.scorer.avx512TalliesUsable() ? ['avx512', 'scalar'] : ['scalar'];

if (native.available) describe('fused dense bands = GEMM tallies scored on the JS path, bit for bit', () => {
  it.each(CASES)('every value, the checksum, threshold records and top-N lists, K2, MI and IG: $name', async (c) => {
    for (const score of SCORES) {
      // Every pair a record: its indices and its value's bits, in the file's order.
      const all = await finalizedOn(c, 'js', score, { kind: 'none' }, new CollectedRecords());
      expect(all.numPairs).toBeGreaterThan(0);
      expect(all.writer.words.length).toBe(3 * all.numPairs);
      const values = Float32Array.from({ length: all.numPairs }, (_, r) => new Float32Array(Uint32Array.of(all.writer.words[3 * r + 2]).buffer)[0]).sort();
      // Not a constant (with an empty class MI and IG are 0 for every pair: engine values 0 and 4).
      if (score === 'k2' || Math.min(c.numControls, c.numCases) > 0) expect(new Set(values).size).toBeGreaterThan(all.numPairs / 4);
      const threshold = singleThreshold(values[Math.floor(values.length * 0.7)]);
      for (const path of nativePaths) {
        const viaNative = await finalizedOn(c, path, score, { kind: 'none' }, new CollectedRecords());
        expect(viaNative.numPairs).toBe(all.numPairs);
        expect(viaNative.writer.words).toEqual(all.writer.words);
        expect(viaNative.sink.checksum.sum()).toBe(all.sink.checksum.sum());
        expect([viaNative.sink.checksum.entries, viaNative.sink.checksum.zeros]).toEqual([all.sink.checksum.entries, all.sink.checksum.zeros]);
        const [jsPast, nativePast] = await Promise.all([finalizedOn(c, 'js', score, threshold, new CollectedRecords()), finalizedOn(c, path, score, threshold, new CollectedRecords())]);
        expect(nativePast.writer.words).toEqual(jsPast.writer.words);
        expect(nativePast.sink.checksum.sum()).toBe(jsPast.sink.checksum.sum());
        for (const top of [{ count: 1, stronger: 'larger' }, { count: 9, stronger: 'larger' }, { count: 5, stronger: 'smaller' }] as const) {
          const [jsTop, nativeTop] = await Promise.all([finalizedOn(c, 'js', score, threshold, new TopRecords(2, top)), finalizedOn(c, path, score, threshold, new TopRecords(2, top))]);
          expect(Array.from(nativeTop.writer.take().words)).toEqual(Array.from(jsTop.writer.take().words));
        }
      }
    }
  }, 120_000);

  it('the built-in analysis declares its dense bands where the scorer is built, none with missing calls', () => {
    const runOf = (sparse: boolean) => epistasis.forRun({
      spec: { metric: 'epistasis', numWay: 2, sparse, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls: 10, score: 'k2' } }, numVector: 20, numField: 30,
    });
    expect(runOf(false).pairs?.finalizeDenseBand).toBeTypeOf('function');
    expect(runOf(true).pairs?.finalizeDenseBand).toBeUndefined();
  });

  it('planes whose g0 and g1 overlap are an error; a sink without a selection or misaligned planes leave the band to the engine', () => {
    const c = CASES[1];
    const { rows, cols, numVector } = blocksOf(c);
    const settings = settingsOf(c, 'ig');
    const band = { rows, cols, panels: [{ rowFirst: 0, numRows: 5, colFirst: 0, numCols: 5, strictUpper: false }] };
    const sink = new EntrySink(numVector, 2, { kind: 'none' }, null);
    // Row 3's controls' g1 plane a copy of its g0 plane: genotype counts past the class (the marginals would read past the tables).
    const words = rows.planes.words.slice();
    const wpp = rows.planes.wordsPerPlane;
    words.copyWithin((3 * 6 + planeOf(0, 1)) * wpp, (3 * 6 + planeOf(0, 0)) * wpp, (3 * 6 + planeOf(0, 0) + 1) * wpp);
    const overlapping = { ...rows, planes: { ...rows.planes, words } };
    expect(() => finalizeDenseBandNatively(settings, { sink, verifier: null }, { ...band, rows: overlapping })).toThrow(/scoreDenseBand: genotype counts exceed the class sizes/);
    const histogram = new HistogramCounter({ numBuckets: 16000, columnNames: ['V'], entryColumns: [0], sumColumns: [] });
    const histogramSink = new EntrySink(numVector, 2, { kind: 'none' }, null, { histogram });
    expect(finalizeDenseBandNatively(settings, { sink: histogramSink, verifier: null }, band)).toBeNull();
    const shifted = new Uint32Array(rows.planes.words.length + 1);
    shifted.set(rows.planes.words, 1);
    const misaligned = { ...rows, planes: { ...rows.planes, words: shifted.subarray(1) } };
    expect(finalizeDenseBandNatively(settings, { sink, verifier: null }, { ...band, rows: misaligned })).toBeNull();
  });
});

else describe('without the native epistasis scorer', () => {
  it('the analysis declares no dense bands: the engine computes and finalizes its panels', () => {
    const run = epistasis.forRun({
      spec: { metric: 'epistasis', numWay: 2, sparse: false, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls: 10, score: 'k2' } }, numVector: 20, numField: 30,
    });
    expect(run.pairs?.finalizeDenseBand).toBeUndefined();
  });
});
