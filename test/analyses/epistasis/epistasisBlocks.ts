// Blocks of epistasis planes from random genotypes, for the device value program tests (2-way and 3-way).
import { epistasisPlaneLayout, planeOf } from '../../../src/analyses/epistasis/epistasisPlanes.js';
import { slabPlaneWordRanges } from '../../../src/engine/blocks/planePacking.js';
import { WORDS_PER_PLANE_ALIGN, type PlaneMatrix, type TermGroup } from '../../../src/mgemm/index.js';
import type { PairBlock, ResultSink, TupleRow, VectorBlockView } from '../../../src/analyses/analysis.js';
import { ChecksumAccumulator } from '../../../src/core/checksum.js';

/** Genotypes 0, 1, 2, 3 = missing of one block, `g[v·numField + s]`. */
export interface Genotypes {
  readonly numVector: number;
  readonly numField: number;
  readonly g: Uint8Array;
}

export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/**
 * Random SNPs of varied allele frequencies — some monomorphic (empty cells), one with every call missing when calls
 * may be missing (a pair with no sample: MI 0).
 */
export function randomGenotypes(random: () => number, numVector: number, numField: number, missingRate: number): Genotypes {
  const g = new Uint8Array(numVector * numField);
  for (let v = 0; v < numVector; v++) {
    const frequency = v % 7 === 3 ? 0 : random() * 0.6;
    const allMissing = missingRate > 0 && v % 11 === 5;
    for (let s = 0; s < numField; s++) {
      const allele = (): number => (random() < frequency ? 1 : 0);
      g[v * numField + s] = allMissing || random() < missingRate ? 3 : allele() + allele();
    }
  }
  return { numVector, numField, g };
}

/** The epistasis planes of a block: per class g = 0, g = 1 and present, bits only in the class's samples. */
export function planesOf(genotypes: Genotypes, numControls: number): PlaneMatrix {
  const { numVector, numField, g } = genotypes;
  const wordsPerPlane = Math.ceil(Math.ceil(numField / 32) / WORDS_PER_PLANE_ALIGN) * WORDS_PER_PLANE_ALIGN;
  const words = new Uint32Array(numVector * 6 * wordsPerPlane);
  for (let v = 0; v < numVector; v++) {
    for (let s = 0; s < numField; s++) {
      const genotype = g[v * numField + s];
      if (genotype === 3) continue;
      const cls = s < numControls ? 0 : 1;
      const kinds = genotype === 2 ? [2] : [genotype, 2];
      for (const kind of kinds) words[(v * 6 + planeOf(cls, kind)) * wordsPerPlane + (s >> 5)] |= 1 << (s & 31);
    }
  }
  // The class ranges blocks carry (slabPlaneWordRanges): a GPU kernel set uploads only their words.
  const planeWordRanges = slabPlaneWordRanges(epistasisPlaneLayout({ numControls, numField, sparse: true }), 0, numField);
  return { numVectors: numVector, numPlanes: 6, wordsPerPlane, words, planeWordRanges };
}

export function blockOf(planes: PlaneMatrix, vectorFirst: number): VectorBlockView {
  return { blockIdx: 0, vectorFirst, numVectorReal: planes.numVectors, planes, sums: new Float64Array(planes.numVectors), counts: new Float64Array(planes.numVectors) };
}

/**
 * A sink that keeps each pair's value at its place in the block (NaN where no pair is); it has no tupleRecordSelection,
 * so finalize takes the JS path.
 */
export function capturingSink(block: PairBlock): { sink: ResultSink; values: Float64Array } {
  const values = new Float64Array(block.numRows * block.numCols).fill(NaN);
  const rowZero = block.rows.vectorFirst + block.rowFirst;
  const colZero = block.cols.vectorFirst + block.colFirst;
  const refuse = (): never => { throw new Error('epistasis finalize gives one value per pair'); };
  const sink: ResultSink = {
    threshold: { kind: 'none' }, checksum: new ChecksumAccumulator(), writesRecords: false,
    addPairRow: refuse, addPairEntryRow: refuse, addTripleRow: refuse, addPairCountRow: refuse, addRecordWords: refuse, addHistogramCounts: refuse,
    addTupleValueRow(tuple: TupleRow, row: Float64Array): void {
      for (let t = 0; t < tuple.count; t++) values[(tuple.i - rowZero) * block.numCols + tuple.first + t - colZero] = row[t];
    },
  };
  return { sink, values };
}

/**
 * Tallies of a pair block from the definition: Σ popcount over each group's terms (epistasis's 6 planes a vector).
 * With `padding`, cells of padded rows or columns get its garbage (what a kernel may leave there); without, their sums.
 */
export function naiveTallies(block: PairBlock, termGroups: readonly TermGroup[], padding?: () => number): Uint32Array[] {
  const popcount = (x: number): number => { let n = 0; for (let y = x >>> 0; y !== 0; y &= y - 1) n++; return n; };
  const { rows, cols } = block;
  const wpp = rows.planes.wordsPerPlane;
  return termGroups.map((group) => {
    const out = new Uint32Array(block.numRows * block.numCols);
    for (let r = 0; r < block.numRows; r++) for (let c = 0; c < block.numCols; c++) {
      if (padding !== undefined && (block.rowFirst + r >= rows.numVectorReal || block.colFirst + c >= cols.numVectorReal)) {
        out[r * block.numCols + c] = Math.floor(padding() * 2 ** 32);
        continue;
      }
      let sum = 0;
      for (const [pa, pb] of group) {
        const a = ((block.rowFirst + r) * 6 + pa) * wpp;
        const b = ((block.colFirst + c) * 6 + pb) * wpp;
        for (let w = 0; w < wpp; w++) sum += popcount(rows.planes.words[a + w] & cols.planes.words[b + w]);
      }
      out[r * block.numCols + c] = sum;
    }
    return out;
  });
}
