// r²'s native window bands (analyses/r2/r2WindowBand.ts, native/src/r2WindowBand.cc) against the engine's JS path for
// the same band: each panel's window sub-blocks, tallies counted naively here (popcounts of plane pairs, term group by
// term group), then finalizeR2Pairs into an EntrySink with the window. Random planes with missing calls and monomorphic
// SNPs (NaN and zero r²), field counts that are not multiples of 64, windows cut by chromosome ends, tiny windows, the
// --ld-window count limit, inter-chr, --ld-window-r2 thresholds, no records, a top-N writer; AVX-512 and 64-bit tallies.
import { describe, expect, it } from 'vitest';
import { pairWindowLimits, type PairWindowLimits, type PairWindowSpec } from '../../../src/core/pairWindow.js';
import { singleThreshold, type Threshold } from '../../../src/core/thresholds.js';
import { atLeastThreshold } from '../../../src/cli/windowOptions.js';
import { EntrySink, type RecordWriter } from '../../../src/engine/finalize/entrySink.js';
import { TopRecords } from '../../../src/engine/finalize/topRecordsSink.js';
import { windowPanelGeometry, windowSubBlocks, type PanelGeometry } from '../../../src/engine/pipeline/windowPanels.js';
import { r2PlaneLayout, termGroupsR2 } from '../../../src/analyses/r2/index.js';
import { finalizeR2Pairs } from '../../../src/analyses/r2/r2Values.js';
import { finalizeR2WindowBand } from '../../../src/analyses/r2/r2WindowBand.js';
import { loadNativeR2Addon } from '../../../src/analyses/r2/native/nativeR2Band.js';
import { nativeRecordSelectionOf, type VectorBlockView } from '../../../src/analyses/index.js';
import { seededLoci } from '../../helpers/seededLoci.js';

const addon = loadNativeR2Addon();
// Where the addon is built (x86-64 with a compiler, `npm run build`), these tests need it; elsewhere the JS path runs.
if (process.arch === 'x64' && !addon.available) throw new Error(`on x86-64 r²'s native window bands must be built: ${addon.reason}`);

/** A seeded block of r² planes: per field a genotype 0/1/2 or (sparse) missing; every 9th vector monomorphic. */
function blockOf(numVector: number, numField: number, options: { readonly sparse: boolean; readonly seed: number }): VectorBlockView {
  let state = options.seed;
  const next = (): number => (state = (state * 48271) % 2147483647);
  const layout = r2PlaneLayout(options.sparse);
  const wordsPerPlane = 4 * Math.ceil(numField / 128);
  const words = new Uint32Array(numVector * 4 * wordsPerPlane);
  const sums = new Float64Array(numVector);
  for (let v = 0; v < numVector; v++) {
    const constant = v % 9 === 4 ? next() % 3 : -1;
    for (let f = 0; f < numField; f++) {
      const missing = options.sparse && next() % 100 < 6;
      const genotype = constant >= 0 ? constant : next() % 3;
      // SPEC §1 codes: 00, 01, 11 for 0, 1, 2 copies; 10 missing.
      const [b1, b0] = missing ? [1, 0] : genotype === 0 ? [0, 0] : genotype === 1 ? [0, 1] : [1, 1];
      const bits = layout.bitsOfCode[2 * b1 + b0];
      for (let p = 0; p < 4; p++) if (((bits >> p) & 1) !== 0) words[(v * 4 + p) * wordsPerPlane + (f >> 5)] |= 1 << (f & 31);
      if (!missing) sums[v] += b1 + b0;
    }
  }
  return { blockIdx: 0, vectorFirst: 0, numVectorReal: numVector, planes: { numVectors: numVector, numPlanes: 4, wordsPerPlane, words }, sums, counts: new Float64Array(numVector) };
}

/** A view of vectors [first, first + count) of `block` as a block of its own (words on an 8-byte boundary). */
function sliceOf(block: VectorBlockView, first: number, count: number, blockIdx: number): VectorBlockView {
  const perVector = 4 * block.planes.wordsPerPlane;
  return {
    blockIdx, vectorFirst: first, numVectorReal: count,
    planes: { ...block.planes, numVectors: count, words: block.planes.words.slice(first * perVector, (first + count) * perVector) },
    sums: block.sums.slice(first, first + count), counts: block.counts.slice(first, first + count),
  };
}

/** Term group tallies of rows × cols of a sub-block, counted pair by pair. */
function naiveTallies(rows: VectorBlockView, cols: VectorBlockView, sub: PanelGeometry, sparse: boolean): Uint32Array[] {
  const wpp = rows.planes.wordsPerPlane;
  const popcount = (x: number): number => {
    let n = 0;
    for (let y = x >>> 0; y !== 0; y &= y - 1) n++;
    return n;
  };
  return termGroupsR2(sparse).map((group) => {
    const out = new Uint32Array(sub.numRows * sub.numCols);
    for (let r = 0; r < sub.numRows && sub.rowFirst + r < rows.numVectorReal; r++) {
      for (let c = 0; c < sub.numCols && sub.colFirst + c < cols.numVectorReal; c++) {
        let sum = 0;
        for (const [pa, pb] of group) {
          const a = ((sub.rowFirst + r) * 4 + pa) * wpp;
          const b = ((sub.colFirst + c) * 4 + pb) * wpp;
          for (let w = 0; w < wpp; w++) sum += popcount(rows.planes.words[a + w] & cols.planes.words[b + w]);
        }
        out[r * sub.numCols + c] = sum;
      }
    }
    return out;
  });
}

/** Collects the records a sink hands its writer. */
class Collected implements RecordWriter {
  readonly words: number[] = [];
  appendRecordWords(words: Uint32Array, numRecords: number): void {
    this.words.push(...words.subarray(0, 3 * numRecords));
  }
}

type WriterKind = 'records' | 'none' | 'top';

interface Outcome {
  readonly checksum: bigint;
  readonly entries: number;
  readonly zeros: number;
  readonly records: number[];
}

function sinkOf(numVector: number, threshold: Threshold, kind: WriterKind, window: PairWindowLimits): { sink: EntrySink; records: () => number[] } {
  if (kind === 'top') {
    const top = new TopRecords(2, { count: 25, stronger: 'larger' });
    const sink = new EntrySink(numVector, 2, threshold, top, { window });
    return { sink, records: () => [...top.take().words] };
  }
  const collected = kind === 'records' ? new Collected() : null;
  const sink = new EntrySink(numVector, 2, threshold, collected, { window });
  return { sink, records: () => collected?.words ?? [] };
}

function outcomeOf(sink: EntrySink, records: () => number[]): Outcome {
  sink.flush();
  return { checksum: sink.checksum.sum(), entries: sink.checksum.entries, zeros: sink.checksum.zeros, records: records() };
}

interface BandCase {
  readonly rows: VectorBlockView;
  readonly cols: VectorBlockView;
  readonly panels: readonly PanelGeometry[];
  readonly window: PairWindowLimits;
  readonly numVector: number;
  readonly numField: number;
  readonly sparse: boolean;
}

/** The engine's JS path: each panel's window sub-blocks, naive tallies, finalizeR2Pairs. */
function jsBand(c: BandCase, threshold: Threshold, kind: WriterKind): Outcome {
  const { sink, records } = sinkOf(c.numVector, threshold, kind, c.window);
  const ctx = { sink, verifier: null };
  const vectorFirst = { rows: c.rows.vectorFirst, cols: c.cols.vectorFirst };
  for (const panel of c.panels) {
    for (const sub of windowSubBlocks(panel, vectorFirst, c.window, 16)) {
      finalizeR2Pairs({ sparse: c.sparse, numField: c.numField }, ctx, { rows: c.rows, cols: c.cols, ...sub }, naiveTallies(c.rows, c.cols, sub, c.sparse));
    }
  }
  return outcomeOf(sink, records);
}

function nativeBand(c: BandCase, threshold: Threshold, kind: WriterKind): Outcome {
  const { sink, records } = sinkOf(c.numVector, threshold, kind, c.window);
  const numPairs = finalizeR2WindowBand({ sink, verifier: null }, { rows: c.rows, cols: c.cols, panels: c.panels, window: c.window });
  expect(numPairs).not.toBeNull();
  return outcomeOf(sink, records);
}

/** The addon's 64-bit popcount path, called directly (records and checksum only). */
function scalarBand(c: BandCase, threshold: Threshold): Outcome {
  if (!addon.available) throw new Error(addon.reason);
  const { sink, records } = sinkOf(c.numVector, threshold, 'records', c.window);
  const selection = nativeRecordSelectionOf(sink.tupleRecordSelection({ windowApplied: true }) ?? expect.fail('no selection'));
  const panels = Int32Array.from(c.panels.flatMap((p) => [p.rowFirst, p.numRows, p.colFirst, p.numCols, p.strictUpper ? 1 : 0]));
  const recordWords = new Uint32Array(3 * c.panels.reduce((n, p) => n + p.numRows * p.numCols, 0));
  const { window } = c;
  const out = addon.addon.r2WindowBand({
    rowWords: c.rows.planes.words, rowNumVectors: c.rows.planes.numVectors, rowVectorFirst: c.rows.vectorFirst, rowsReal: c.rows.numVectorReal,
    colWords: c.cols.planes.words, colNumVectors: c.cols.planes.numVectors, colVectorFirst: c.cols.vectorFirst, colsReal: c.cols.numVectorReal,
    wordsPerPlane: c.rows.planes.wordsPerPlane, numVector: c.numVector, bandBegin: window.bandBegin, bandEnd: window.bandEnd,
    chrBegin: window.chrBegin, chrEnd: window.chrEnd, interChr: window.spec.interChr, panels, scalar: true,
  }, selection ?? expect.fail('no native selection'), recordWords);
  sink.checksum.merge(out.checksumLimbs, out.entries, out.zeros);
  sink.addRecordWords(recordWords, out.numRecords);
  return outcomeOf(sink, records);
}

const SPECS: readonly PairWindowSpec[] = [
  { maxVectorSpan: null, maxDistanceBp: 30_000, interChr: false },
  { maxVectorSpan: 7, maxDistanceBp: null, interChr: false },
  { maxVectorSpan: 2, maxDistanceBp: null, interChr: false },
  { maxVectorSpan: 12, maxDistanceBp: 25_000, interChr: true },
];

const THRESHOLDS: readonly Threshold[] = [singleThreshold(null), atLeastThreshold(0.2), atLeastThreshold(0.01)];

/** Diagonal and off-diagonal steps of a split at `split`, as bands of all their panels. */
function bandCases(block: VectorBlockView, window: PairWindowLimits, split: number, o: { readonly numField: number; readonly sparse: boolean }): BandCase[] {
  const numVector = block.numVectorReal;
  const shape = { rowsPerPanel: 13, pairsPerPanel: 700 };
  const diagonal = { rowRange: { begin: 0, end: numVector }, colRange: { begin: 0, end: numVector }, strictUpper: true };
  const upper = sliceOf(block, 0, split, 0);
  const lower = sliceOf(block, split, numVector - split, 1);
  const offDiagonal = { rowRange: { begin: 0, end: split }, colRange: { begin: 0, end: numVector - split }, strictUpper: false };
  return [
    { rows: block, cols: block, panels: [...windowPanelGeometry(0, 0, diagonal, window, shape)], window, numVector, ...o },
    { rows: upper, cols: lower, panels: [...windowPanelGeometry(0, split, offDiagonal, window, shape)], window, numVector, ...o },
  ];
}

// Defined only where the addon is (the other describe below otherwise): nothing is skipped.
if (addon.available) describe("r²'s native window bands", () => {
  for (const { numField, sparse, sizes } of [
    { numField: 1000, sparse: true, sizes: [90, 1, 40, 60] },
    { numField: 70, sparse: true, sizes: [90, 2, 111] },
    { numField: 129, sparse: false, sizes: [64, 80, 1, 57] },
    { numField: 64, sparse: true, sizes: [200] },
  ]) {
    it(`equal the JS path: ${numField} fields, ${sparse ? 'sparse' : 'dense'}, chromosomes of ${sizes.join(', ')}`, () => {
      const loci = seededLoci(sizes, numField, { startJitter: 0, maxGap: 6000, equalPositions: true });
      const block = blockOf(loci.chromosome.length, numField, { sparse, seed: 7 + numField });
      for (const spec of SPECS) {
        const window = pairWindowLimits(spec, { ...loci, record: (v) => `vector ${v}` }, 'test loci');
        const bands = bandCases(block, window, Math.floor(loci.chromosome.length / 2) + 1, { numField, sparse });
        expect(jsBand(bands[0], THRESHOLDS[0], 'none').entries, JSON.stringify(spec)).toBeGreaterThan(0);
        for (const band of bands) {
          for (const threshold of THRESHOLDS) {
            const js = jsBand(band, threshold, 'records');
            expect(nativeBand(band, threshold, 'records'), JSON.stringify({ spec, threshold })).toEqual(js);
            expect(scalarBand(band, threshold)).toEqual(js);
          }
          expect(nativeBand(band, THRESHOLDS[1], 'none')).toEqual(jsBand(band, THRESHOLDS[1], 'none'));
          expect(nativeBand(band, THRESHOLDS[0], 'top')).toEqual(jsBand(band, THRESHOLDS[0], 'top'));
        }
      }
    });
  }

  it('leave a sink with a histogram to the JS path', () => {
    const loci = seededLoci([40], 3, { startJitter: 0, maxGap: 6000, equalPositions: false });
    const window = pairWindowLimits(SPECS[1], { ...loci, record: (v) => `vector ${v}` }, 'test loci');
    const block = blockOf(40, 100, { sparse: true, seed: 5 });
    const histogram = { layout: { numBuckets: 10, columnNames: ['R2'], entryColumns: [-1, -1, -1, 0], sumColumns: [] }, addTuples: () => undefined };
    const sink = new EntrySink(40, 2, singleThreshold(null), null, { window, histogram: histogram as never });
    expect(finalizeR2WindowBand({ sink, verifier: null }, bandCases(block, window, 20, { numField: 100, sparse: true })[0])).toBeNull();
  });
});

if (!addon.available) describe("without r²'s native window bands", () => {
  it('bands take the JS path, and the reason is known', () => {
    const loci = seededLoci([40], 3, { startJitter: 0, maxGap: 6000, equalPositions: false });
    const window = pairWindowLimits(SPECS[1], { ...loci, record: (v) => `vector ${v}` }, 'test loci');
    const sink = new EntrySink(40, 2, singleThreshold(null), null, { window });
    expect(finalizeR2WindowBand({ sink, verifier: null }, bandCases(blockOf(40, 100, { sparse: true, seed: 5 }), window, 20, { numField: 100, sparse: true })[0])).toBeNull();
    expect(addon.available ? '' : addon.reason).toMatch(/^r²'s native window bands unavailable: /);
  });
});
