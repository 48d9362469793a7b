// The native scorer of dense 2-way epistasis panels (analyses/epistasis/nativeDensePairs.ts, native/src/) against the
// JS path (epistasisPairs.ts DensePairScorer and EntrySink.addTupleValueRow): every pair's engine value the same
// double, bit for bit, for K2, MI and IG on random tables — small, large and empty classes, monomorphic SNPs —, on
// ragged panels (padded rows and columns whose tallies are garbage), strictUpper diagonal panels, and blocks whose
// column SNPs precede the row SNPs (cells transposed); the same checksum (sum, entries, zeros) and records past a
// threshold in the same order; the same top-N lists for larger and smaller stronger values, panel after panel.
import { describe, expect, it } from 'vitest';
import { BlockGenotypeCounts, finalizeEpistasisPairs } from '../../../src/analyses/epistasis/epistasisFinalize.js';
import type { EpistasisFinalizeSettings } from '../../../src/analyses/epistasis/epistasisPairs.js';
import { classWordRanges, pairTermGroups } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { k2ScaleOf, LN2, ScoreTables } from '../../../src/analyses/epistasis/epistasisScores.js';
import { loadNativePairScorer } from '../../../src/analyses/epistasis/native/nativePairScores.js';
import type { PairBlock, VectorBlockView } from '../../../src/analyses/analysis.js';
import { EntrySink, type RecordWriter } from '../../../src/engine/finalize/entrySink.js';
import { HistogramCounter } from '../../../src/engine/finalize/histogramSink.js';
import { TopRecords, type TopRecordsSpec } from '../../../src/engine/finalize/topRecordsSink.js';
import { singleThreshold, type Threshold } from '../../../src/core/thresholds.js';
import type { EpistasisScore } from '../../../src/core/types.js';
import { blockOf, capturingSink, naiveTallies, planesOf, randomGenotypes, seeded, type Genotypes } from './epistasisBlocks.js';

const native = loadNativePairScorer();
// Where the scorer is built (x86-64 with a compiler, `npm run build`), these tests need it; elsewhere the JS path runs.
if (process.arch === 'x64' && !native.available) throw new Error(`on x86-64 the native epistasis scorer must be built: ${native.reason}`);
const SCORES: readonly EpistasisScore[] = ['k2', 'mi', 'ig'];

/** One panel: rows [rowFirst, +numRows) of the row block × cols [colFirst, +numCols) of the column block (or itself). */
interface PanelCase {
  readonly name: string;
  readonly numControls: number;
  readonly numCases: number;
  readonly numRowVectors: number;
  /** 0: the row block against itself (strictUpper). */
  readonly numColVectors: number;
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
  /** The column block's SNPs precede the row block's (the row SNP is the later one: cells transposed). */
  readonly colsFirst?: boolean;
  /** SNP v of a block repeats SNP v mod this (many pairs of one table: ties, broken by index in a top N). */
  readonly distinctSnps?: number;
  readonly seed: number;
}

const CASES: readonly PanelCase[] = [
  { name: 'one block, 150 + 183 samples', numControls: 150, numCases: 183, numRowVectors: 40, numColVectors: 0, rowFirst: 0, numRows: 40, colFirst: 0, numCols: 40, seed: 1 },
  { name: 'a diagonal panel of one block (rows 7–29 against cols 3–41), ragged: padded rows and cols', numControls: 97, numCases: 64, numRowVectors: 42, numColVectors: 0, rowFirst: 7, numRows: 40, colFirst: 3, numCols: 45, seed: 2 },
  { name: 'two blocks, rows before cols, ragged', numControls: 260, numCases: 257, numRowVectors: 30, numColVectors: 33, rowFirst: 2, numRows: 32, colFirst: 1, numCols: 36, seed: 3 },
  { name: 'two blocks, cols before rows (transposed cells)', numControls: 201, numCases: 160, numRowVectors: 23, numColVectors: 18, rowFirst: 0, numRows: 23, colFirst: 0, numCols: 18, colsFirst: true, seed: 4 },
  { name: 'large classes, 9000 + 11001 samples', numControls: 9000, numCases: 11001, numRowVectors: 9, numColVectors: 11, rowFirst: 0, numRows: 9, colFirst: 0, numCols: 11, seed: 5 },
  { name: 'tiny classes, 5 + 40 samples, transposed', numControls: 5, numCases: 40, numRowVectors: 20, numColVectors: 15, rowFirst: 1, numRows: 19, colFirst: 2, numCols: 13, colsFirst: true, seed: 6 },
  { name: 'an empty class: no control and 70 cases', numControls: 0, numCases: 70, numRowVectors: 25, numColVectors: 0, rowFirst: 0, numRows: 25, colFirst: 0, numCols: 25, seed: 7 },
];

/** The case's random genotypes of one block, SNPs repeated when the case asks for it. */
function genotypesOf(c: PanelCase, random: () => number, numVector: number): Genotypes {
  const numField = c.numControls + c.numCases;
  const genotypes = randomGenotypes(random, numVector, numField, 0);
  const period = c.distinctSnps ?? numVector;
  for (let v = period; v < numVector; v++) genotypes.g.copyWithin(v * numField, (v % period) * numField, (v % period + 1) * numField);
  return genotypes;
}

/** The case's pair block (global vectors from 3; between the blocks 2 unused vectors) and the run's vector count. */
function pairBlockOf(c: PanelCase): { block: PairBlock; numVector: number } {
  const random = seeded(c.seed);
  const numField = c.numControls + c.numCases;
  const rowGenotypes = genotypesOf(c, random, c.numRowVectors);
  const numVector = 3 + c.numRowVectors + 2 + c.numColVectors + 3;
  const rowVector = c.colsFirst === true ? 3 + c.numColVectors + 2 : 3;
  const rows = blockOf(planesOf(rowGenotypes, c.numControls), rowVector);
  let cols: VectorBlockView = rows;
  if (c.numColVectors > 0) cols = { ...blockOf(planesOf(genotypesOf(c, random, c.numColVectors), c.numControls), c.colsFirst === true ? 3 : 3 + c.numRowVectors + 2), blockIdx: 1 };
  const block: PairBlock = { rows, rowFirst: c.rowFirst, numRows: c.numRows, cols, colFirst: c.colFirst, numCols: c.numCols, strictUpper: c.numColVectors === 0 };
  return { block, numVector };
}


function settingsOf(c: PanelCase, score: EpistasisScore, scorer: 'native' | 'js'): EpistasisFinalizeSettings {
  const numField = c.numControls + c.numCases;
  return {
    score, sparse: false, classSizes: [c.numControls, c.numCases], tables: new ScoreTables(numField + 27),
    classWords: classWordRanges(c.numControls, numField), densePairScorer: scorer,
  };
}


/** Every record a sink hands its writer, in order. */
class CollectedRecords implements RecordWriter {
  readonly words: number[] = [];
  appendRecordWords(words: Uint32Array, numRecords: number): void {
    this.words.push(...words.subarray(0, 3 * numRecords));
  }
}

/** A top-N writer that counts the records it is handed. */
class CountedTopRecords extends TopRecords {
  numAppended = 0;
  override appendRecordWords(words: Uint32Array, numRecords: number): void {
    this.numAppended += numRecords;
    super.appendRecordWords(words, numRecords);
  }
}

/** Finalizes the block once per scorer into fresh sinks with `writerOf()`'s writers; returns both sinks and writers. */
function bothPaths<W extends RecordWriter>(c: PanelCase, score: EpistasisScore, threshold: Threshold, writerOf: () => W, panels: readonly PairBlock[], tallies: readonly (readonly Uint32Array[])[], numVector: number) {
  return (['js', 'native'] as const).map((scorer) => {
    const settings = settingsOf(c, score, scorer);
    const counts = new BlockGenotypeCounts(settings);
    const writer = writerOf();
    const sink = new EntrySink(numVector, 2, threshold, writer);
    const numPairs = panels.reduce((sum, panel, p) => sum + finalizeEpistasisPairs(settings, { sink, verifier: null }, panel, tallies[p], counts), 0);
    sink.flush();
    return { sink, writer, numPairs };
  });
}

// Defined only where the scorer is (the other describe below otherwise): nothing is skipped.
if (native.available) describe('native dense 2-way epistasis scorer = the JS path, bit for bit', () => {
  it.each(CASES)('every pair\'s engine value, the checksum and the threshold\'s records, K2, MI and IG: $name', (c) => {
    const { block, numVector } = pairBlockOf(c);
    const tallies = naiveTallies(block, pairTermGroups(false), seeded(c.seed + 100));
    for (const score of SCORES) {
      const js = capturingSink(block);
      const settings = settingsOf(c, score, 'js');
      const numPairs = finalizeEpistasisPairs(settings, { sink: js.sink, verifier: null }, block, tallies, new BlockGenotypeCounts(settings));
      const rowsReal = Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst);
      const colsReal = Math.min(block.numCols, block.cols.numVectorReal - block.colFirst);
      if (block.strictUpper) expect(numPairs).toBeLessThan(rowsReal * colsReal);
      else expect(numPairs).toBe(rowsReal * colsReal);
      // The addon's values, written beside its checksum: the same doubles (both 32-bit words of each).
      const values = new Float64Array(block.numRows * block.numCols).fill(NaN);
      const counts = new BlockGenotypeCounts(settings);
      const [controls, cases] = settings.classSizes;
      const scores = native.available && native.scorer.scoreDensePairs({
        tallies, numCols: block.numCols, rowsReal, colsReal, strictUpper: block.strictUpper,
        rowVectorFirst: block.rows.vectorFirst + block.rowFirst, colVectorFirst: block.cols.vectorFirst + block.colFirst,
        rowCounts: counts.of(block.rows).subarray(4 * block.rowFirst), colCounts: counts.of(block.cols).subarray(4 * block.colFirst),
        controls, cases, numVector, values,
      }, { score, logFactorial: settings.tables.logFactorial, nLogN: settings.tables.nLogN, k2Scale: k2ScaleOf(settings.tables), ln2: LN2 },
      { writesRecords: false, threshold: null, bar: null, topCount: 0, topLarger: true });
      expect(scores && scores.numPairs).toBe(numPairs);
      const jsWords = new Uint32Array(js.values.buffer);
      const nativeWords = new Uint32Array(values.buffer);
      for (let p = 0; p < values.length; p++) {
        if (jsWords[2 * p] !== nativeWords[2 * p] || jsWords[2 * p + 1] !== nativeWords[2 * p + 1]) {
          throw new Error(`${score} at ${p}: native ${values[p]}, JS ${js.values[p]}`);
        }
      }
      // Not a constant: the tables differ (with an empty class MI and IG are 0 for every pair: engine values 0 and 4).
      const distinct = new Set(js.values.filter((v) => !Number.isNaN(v)));
      if (score === 'k2' || Math.min(c.numControls, c.numCases) > 0) expect(distinct.size).toBeGreaterThan(numPairs / 4);
      // Through the sink: checksum and records past the 70th percentile, in the same order.
      const sorted = js.values.filter((v) => !Number.isNaN(v)).sort();
      const threshold = singleThreshold(Math.fround(sorted[Math.floor(sorted.length * 0.7)]));
      const [viaJs, viaNative] = bothPaths(c, score, threshold, () => new CollectedRecords(), [block], [tallies], numVector);
      expect(viaNative.numPairs).toBe(viaJs.numPairs);
      const checksumOf = (sink: EntrySink): unknown => ({ sum: sink.checksum.sum(), entries: sink.checksum.entries, zeros: sink.checksum.zeros });
      expect(checksumOf(viaNative.sink)).toEqual(checksumOf(viaJs.sink));
      expect(viaJs.sink.checksum.entries).toBe(numPairs);
      expect(viaNative.writer.words).toEqual(viaJs.writer.words);
      if (distinct.size > 1) expect(viaJs.writer.words.length).toBeGreaterThan(0);
    }
  }, 120_000);

  it.each([
    { count: 1, stronger: 'larger' }, { count: 7, stronger: 'larger' }, { count: 5000, stronger: 'larger' }, { count: 6, stronger: 'smaller' },
  ] as const)('top-N lists, panel after panel (the bar carried between them): $count, $stronger values stronger', (top: TopRecordsSpec) => {
    // Columns before rows: a later pair can have the smaller indices, and so win a tie (the bar is inclusive).
    const c: PanelCase = {
      name: 'ties', numControls: 120, numCases: 131, numRowVectors: 30, numColVectors: 33, rowFirst: 2, numRows: 32, colFirst: 1, numCols: 36,
      colsFirst: true, distinctSnps: 4, seed: 12,
    };
    const { block, numVector } = pairBlockOf(c);
    // The block as three row panels, as the pipeline and finalize tasks cut it.
    const panels = [[0, 9], [9, 21], [21, 32]].map(([first, end]): PairBlock => ({ ...block, rowFirst: block.rowFirst + first, numRows: end - first }));
    const tallies = panels.map((panel, p) => naiveTallies(panel, pairTermGroups(false), seeded(50 + p)));
    for (const score of SCORES) {
      // Every record, then those past the median value.
      const [all] = bothPaths(c, score, { kind: 'none' }, () => new CollectedRecords(), panels, tallies, numVector);
      const values = Float32Array.from({ length: all.writer.words.length / 3 }, (_, r) => new Float32Array(Uint32Array.of(all.writer.words[3 * r + 2]).buffer)[0]).sort();
      for (const threshold of [{ kind: 'none' } as const, singleThreshold(values[values.length >> 1])]) {
        const [viaJs, viaNative] = bothPaths(c, score, threshold, () => new CountedTopRecords(2, top), panels, tallies, numVector);
        // The native path hands over only records that can still enter the top N (its bar tightened by its own).
        expect(viaNative.writer.numAppended).toBeLessThanOrEqual(viaJs.writer.numAppended);
        const jsTop = viaJs.writer.take();
        const numPassing = threshold.kind === 'none' ? values.length : values.filter((v) => v > values[values.length >> 1]).length;
        expect(jsTop.numRecords).toBe(Math.min(top.count, numPassing));
        expect(Array.from(viaNative.writer.take().words)).toEqual(Array.from(jsTop.words));
        expect(viaNative.sink.checksum.sum()).toBe(viaJs.sink.checksum.sum());
      }
    }
  });

  it('a sink with a histogram (which the native path does not feed) or a per-entry threshold takes the JS path', () => {
    const c = CASES[0];
    const { block, numVector } = pairBlockOf(c);
    const tallies = naiveTallies(block, pairTermGroups(false), seeded(9));
    const histogram = new HistogramCounter({ numBuckets: 16000, columnNames: ['V'], entryColumns: [0], sumColumns: [] });
    expect(new EntrySink(numVector, 2, { kind: 'none' }, null, { histogram }).tupleRecordSelection()).toBeNull();
    const multi: Threshold = { kind: 'multi2', tLL: 5, tLH: 5, tHH: 5, tLLHH: 5 };
    const [viaJs, viaNative] = bothPaths(c, 'k2', multi, () => new CollectedRecords(), [block], [tallies], numVector);
    expect(viaNative.sink.checksum.sum()).toBe(viaJs.sink.checksum.sum());
    expect(viaNative.writer.words).toEqual(viaJs.writer.words);
  });

  it('tallies inconsistent with the SNPs\' genotype counts are an error, not garbage scores', () => {
    const c = CASES[0];
    const { block, numVector } = pairBlockOf(c);
    const tallies = naiveTallies(block, pairTermGroups(false), seeded(10));
    tallies[0][block.numCols + 5] += 1000;
    const settings = settingsOf(c, 'k2', 'native');
    const sink = new EntrySink(numVector, 2, { kind: 'none' }, null);
    expect(() => finalizeEpistasisPairs(settings, { sink, verifier: null }, block, tallies, new BlockGenotypeCounts(settings)))
      .toThrow(/scoreDensePairs: a pair's tallies exceed its SNPs' genotype counts/);
    // A SNP's class counts past its class (the per-SNP marginals of IG would read past the tables).
    const counts = new BlockGenotypeCounts(settings).of(block.rows).slice();
    counts[4 * 2 + 1] = c.numControls + 1;
    const rowsReal = block.rows.numVectorReal;
    expect(() => native.available && native.scorer.scoreDensePairs({
      tallies: naiveTallies(block, pairTermGroups(false), seeded(10)), numCols: block.numCols, rowsReal, colsReal: rowsReal, strictUpper: true,
      rowVectorFirst: block.rows.vectorFirst, colVectorFirst: block.rows.vectorFirst, rowCounts: counts, colCounts: counts,
      controls: c.numControls, cases: c.numCases, numVector,
    }, { score: 'ig', logFactorial: settings.tables.logFactorial, nLogN: settings.tables.nLogN, k2Scale: 1, ln2: LN2 },
    { writesRecords: false, threshold: null, bar: null, topCount: 0, topLarger: true })).toThrow(/genotype counts exceed the class sizes/);
  });
});

else describe('without the native epistasis scorer', () => {
  it('says why, and dense pairs are scored in JavaScript', () => {
    expect(native.available ? '' : native.reason).toMatch(/^native epistasis scorer unavailable: /);
    const c = CASES[0];
    const { block, numVector } = pairBlockOf(c);
    const tallies = naiveTallies(block, pairTermGroups(false), seeded(11));
    const [viaJs, viaNative] = bothPaths(c, 'k2', { kind: 'none' }, () => new CollectedRecords(), [block], [tallies], numVector);
    expect(viaNative.sink.checksum.sum()).toBe(viaJs.sink.checksum.sum());
  });
});
