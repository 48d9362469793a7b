// Band tasks of windowed CPU runs (pipeline/windowBands.ts, finalize/pairBands.ts): a panel's window sub-blocks hold
// exactly its pairs in the window, in the panel's order (checked pair by pair against pairInWindow); bands take every
// panel once, in order, cut at step boundaries; and windowed runs of many bands over several chromosomes write the
// same record files on 1 (bands on the calling thread), 2 and 3 threads as the reference kernel set's panel-by-panel run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pairInWindow, pairWindowLimits, type PairWindowLimits, type PairWindowSpec } from '../../src/core/pairWindow.js';
import { runJob, type JobSpec } from '../../src/engine/index.js';
import { windowPanelGeometry, windowSubBlocks, type PanelGeometry } from '../../src/engine/pipeline/windowPanels.js';
import { bandPairsOf, bandsOf } from '../../src/engine/pipeline/windowBands.js';
import { pairsInPanel } from '../../src/engine/pipeline/panelPairs.js';
import type { PairBlock, VectorBlockView } from '../../src/analyses/index.js';
import { makeJob, type JobOptions } from './jobFixtures.js';
import { seededLoci, type Loci } from '../helpers/seededLoci.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-bands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Chromosomes of `sizes` vectors, positions rising by seeded gaps of 0–5,999 bp. */
function lociOf(sizes: readonly number[], seed: number): Loci {
  return seededLoci(sizes, seed, { startJitter: 0, maxGap: 6000, equalPositions: false });
}

function limitsOf(loci: ReturnType<typeof lociOf>, spec: PairWindowSpec): PairWindowLimits {
  return pairWindowLimits(spec, { ...loci, record: (v) => `vector ${v}` }, 'test loci');
}

/** `i,j` of every pair of `p` (global: rows from `rowFirst`, columns from `colFirst`) in the window, row by row. */
function windowPairsOfPanel(p: PanelGeometry, limits: PairWindowLimits, vectorFirst: { rows: number; cols: number }): string[] {
  const out: string[] = [];
  for (let r = 0; r < p.numRows; r++) {
    for (let c = 0; c < p.numCols; c++) {
      if (p.strictUpper && c <= r + p.rowFirst - p.colFirst) continue;
      const i = vectorFirst.rows + p.rowFirst + r;
      const j = vectorFirst.cols + p.colFirst + c;
      if (i !== j && pairInWindow(limits, i, j)) out.push(`${i},${j}`);
    }
  }
  return out;
}

const SPECS: readonly PairWindowSpec[] = [
  { maxVectorSpan: null, maxDistanceBp: 40_000, interChr: false },
  { maxVectorSpan: 7, maxDistanceBp: null, interChr: false },
  { maxVectorSpan: 12, maxDistanceBp: 25_000, interChr: true },
];

describe('window sub-blocks', () => {
  const loci = lociOf([130, 3, 90, 57], 11);
  const numVector = loci.chromosome.length;
  it('hold each panel\'s pairs in the window in its order (diagonal and off-diagonal steps, ragged chunk sizes)', () => {
    for (const spec of SPECS) {
      const limits = limitsOf(loci, spec);
      // The diagonal step of one block, and an off-diagonal step of two blocks of a split at vector 101.
      const steps = [
        { vectorFirst: { rows: 0, cols: 0 }, region: { rowRange: { begin: 0, end: numVector }, colRange: { begin: 0, end: numVector }, strictUpper: true } },
        { vectorFirst: { rows: 0, cols: 101 }, region: { rowRange: { begin: 0, end: 101 }, colRange: { begin: 0, end: numVector - 101 }, strictUpper: false } },
      ];
      for (const { vectorFirst, region } of steps) {
        for (const shape of [{ rowsPerPanel: 9, pairsPerPanel: 300 }, { rowsPerPanel: 32, pairsPerPanel: 1 << 22 }]) {
          for (const panel of windowPanelGeometry(vectorFirst.rows, vectorFirst.cols, region, limits, shape)) {
            for (const rowsPerChunk of [1, 4, 5, 16]) {
              const subs = windowSubBlocks(panel, vectorFirst, limits, rowsPerChunk);
              const covered = subs.flatMap((sub) => windowPairsOfPanel(sub, limits, vectorFirst));
              expect(covered).toEqual(windowPairsOfPanel(panel, limits, vectorFirst));
              for (const sub of subs) {
                // Within the panel; a strictUpper chunk starts its columns at its first row.
                expect(sub.rowFirst).toBeGreaterThanOrEqual(panel.rowFirst);
                expect(sub.rowFirst + sub.numRows).toBeLessThanOrEqual(panel.rowFirst + panel.numRows);
                expect(sub.colFirst).toBeGreaterThanOrEqual(panel.colFirst);
                expect(sub.colFirst + sub.numCols).toBeLessThanOrEqual(panel.colFirst + panel.numCols);
                if (sub.strictUpper) expect(sub.colFirst).toBe(sub.rowFirst);
              }
            }
          }
        }
      }
    }
  });
});

describe('bands of panels', () => {
  const block = (blockIdx: number): VectorBlockView => ({
    blockIdx, vectorFirst: 0, numVectorReal: 0, planes: { numVectors: 0, numPlanes: 1, wordsPerPlane: 4, words: new Uint32Array(0) },
    sums: new Float64Array(0), counts: new Float64Array(0),
  });
  const [a, b, c] = [block(0), block(1), block(2)];

  async function* panelsOf(blocks: readonly PairBlock[]): AsyncGenerator<{ block: PairBlock }> {
    for (const p of blocks) yield { block: p };
  }

  it('take every panel once, in order, cut at the band size and where the blocks change (ragged sizes)', async () => {
    let state = 5;
    const next = (): number => (state = (state * 48271) % 2147483647);
    const panels: PairBlock[] = [];
    for (let k = 0; k < 200; k++) {
      const cols = k < 70 ? a : k < 71 ? b : k < 150 ? c : a;
      panels.push({ rows: a, rowFirst: k, numRows: 1 + (next() % 40), cols, colFirst: 0, numCols: 1 + (next() % 90), strictUpper: next() % 3 === 0 });
    }
    for (const pairsPerBand of [1, 500, 3000, 1 << 20]) {
      const bands: PairBlock[][] = [];
      for await (const band of bandsOf(panelsOf(panels), pairsPerBand)) bands.push(band);
      expect(bands.flat()).toEqual(panels);
      for (const band of bands) {
        expect(band.every((p) => p.cols === band[0].cols && p.rows === band[0].rows)).toBe(true);
        // A band reaches the size only with its last panel.
        const pairs = band.map((p) => pairsInPanel(p));
        expect(pairs.slice(0, -1).reduce((x, y) => x + y, 0)).toBeLessThan(pairsPerBand);
      }
      // Cut only where needed: the next band starts with other blocks, or this one is full.
      for (let k = 0; k + 1 < bands.length; k++) {
        const full = bands[k].reduce((x, p) => x + pairsInPanel(p), 0) >= pairsPerBand;
        expect(full || bands[k + 1][0].cols !== bands[k][0].cols).toBe(true);
      }
    }
  });
});

/** The bytes of a run's record files, in rank order. */
function filesOf(result: { readonly outputFiles: readonly string[] }): Buffer[] {
  return result.outputFiles.map((file) => readFileSync(file));
}

let stubIdx = 0;
function windowedJob(o: JobOptions & { readonly metric?: JobOptions['metric'] | 'r2' }, loci: ReturnType<typeof lociOf>, spec: PairWindowSpec): JobSpec {
  return {
    ...makeJob({ ...o, outputStub: join(dir, `run${stubIdx++}`) } as JobOptions),
    window: { ldWindow: spec.maxVectorSpan, ldWindowKb: spec.maxDistanceBp === null ? null : spec.maxDistanceBp / 1000, interChr: spec.interChr, limits: limitsOf(loci, spec) },
  };
}

describe('windowed runs in bands', () => {
  // Four chromosomes, one of a single SNP; 5–30 k pairs in each window: bands of 1–2 k pairs on 2 and 3 threads.
  const cases = [
    { metric: 'r2', sparse: true, spec: SPECS[0], loci: lociOf([700, 1, 450, 349], 3) },
    { metric: 'r2', sparse: false, spec: SPECS[2], loci: lociOf([110, 1, 70, 60], 4) },
    { metric: 'ccc', sparse: true, spec: SPECS[1], loci: lociOf([700, 1, 450, 349], 5) },
  ] as const;
  for (const { metric, sparse, spec, loci } of cases) {
    it(`${metric}${sparse ? ' sparse' : ''} ${JSON.stringify(spec)}: threads 1, 2, 3 and npv 2 write the ref run's checksum and files`, async () => {
      const numVector = loci.chromosome.length;
      const base = { metric, sparse, numVector, numField: 70, threshold: metric === 'ccc' ? 0.62 : null };
      const reference = await runJob(windowedJob({ ...base, backend: 'ref' }, loci, spec));
      expect(reference.windowPairs).toBeGreaterThan(5000);
      const own = { vectorFirst: 0, numVectorReal: numVector } as VectorBlockView;
      // Several bands per thread, so that bands may finish out of the order they are merged in.
      expect(bandPairsOf(limitsOf(loci, spec), own, 2) * 4).toBeLessThan(reference.windowPairs ?? 0);
      for (const numThreads of [1, 2, 3]) {
        const result = await runJob(windowedJob({ ...base, backend: 'cpu', numThreads }, loci, spec));
        expect({ checksum: result.checksum, entries: result.entries, windowPairs: result.windowPairs, comparisons: result.comparisons }, `threads ${numThreads}`)
          .toEqual({ checksum: reference.checksum, entries: reference.entries, windowPairs: reference.windowPairs, comparisons: reference.comparisons });
        expect(filesOf(result)).toEqual(filesOf(reference));
      }
      // Two ranks: the second block's diagonal and the first's off-diagonal step run as bands too.
      const twoRanks = await runJob(windowedJob({ ...base, backend: 'cpu', numThreads: 2, decomposition: { numProcVector: 2 } }, loci, spec));
      const twoRanksRef = await runJob(windowedJob({ ...base, backend: 'ref', decomposition: { numProcVector: 2 } }, loci, spec));
      expect(twoRanks.checksum).toBe(reference.checksum);
      expect(filesOf(twoRanks)).toEqual(filesOf(twoRanksRef));
    }, 300_000);
  }
});
