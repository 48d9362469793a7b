// A rank's view of the decomposition: its grid coordinates, block shapes, the steps or units it
// computes (from the parallel plans), which blocks it needs and which ranks need its block.
import {
  blockCirculantPlan, blockExchangePlan, coordsOf, fieldSlabRange, numFieldLocal, numVectorLocal, quadPartIndex, quadPlan,
  quadsOfTile, rankOf, slabPlan, slabPhaseUnits, vectorBlockRange, type BlockExchange, type GridCoords, type IndexRange, type QuadTile,
} from '../../parallel/index.js';
import { QUAD_COLS_PER_TILE, QUAD_ROWS_PER_TILE } from '../pipeline/pipeline4.js';
import type { JobSpec } from './jobSpec.js';
import { PAIRS_PER_PANEL, pairsInPanel, pairsOfStep, type PairStep } from '../pipeline/pipeline2.js';
import { windowPanelGeometry, windowPanelRows } from '../pipeline/windowPanels.js';
import { windowTouches, type PairWindowLimits } from '../../core/pairWindow.js';
import { forEachTripleSlice, type TripleUnit } from '../pipeline/pipeline3.js';

export interface RankLayout {
  readonly coords: GridCoords;
  readonly numVectorLocal: number;
  readonly numFieldLocal: number;
  readonly fieldRange: IndexRange;
  /** Real vectors of each vector block. */
  readonly blockRanges: readonly IndexRange[];
  readonly pairSteps: readonly PairStep[];
  /** 3-way units, one list per stage of [stageMin, stageMax]. */
  readonly tripleUnitsByStage: readonly (readonly TripleUnit[])[];
  /** 4-way tiles of the rank's phases and stages (every rank holds every vector: one block, no exchange). */
  readonly quadTiles: readonly QuadTile[];
  /** Blocks this rank receives and the ranks it sends its own block to. */
  readonly exchange: BlockExchange;
  /** Comparisons (unique tuples × fields) this rank computes, for progress. */
  readonly totalComparisons: number;
}

const range = (first: number, last: number): number[] => Array.from({ length: last - first + 1 }, (_, t) => first + t);

/** A 2-way step of the block-circulant plan, before the LD window skips it or not. */
interface PlannedStep {
  readonly rowBlock: number;
  readonly colBlock: number;
  readonly rowRange: IndexRange;
  readonly colRange: IndexRange;
}

/**
 * Whether a step has pairs to compute: always without an LD window; with one, only when some pair of its rows and
 * columns is in it. A skipped step's column block is neither computed with nor received (blockExchangePlan follows
 * the steps), so block pairs far from the band cost nothing, not even their exchange.
 */
function stepTouchesWindow(job: JobSpec, step: PlannedStep, blockFirst: (block: number) => number): boolean {
  const window = job.window?.limits ?? null;
  if (window === null) return true;
  const rowFirst = blockFirst(step.rowBlock);
  const colFirst = blockFirst(step.colBlock);
  return windowTouches(window,
    { begin: rowFirst + step.rowRange.begin, end: rowFirst + step.rowRange.end },
    { begin: colFirst + step.colRange.begin, end: colFirst + step.colRange.end });
}

/** Pairs a step computes: all of its pairs, or with an LD window those of the tiles that touch its band. */
function pairsComputedOf(step: PairStep, window: PairWindowLimits | null, rowFirst: number, colFirst: number): number {
  if (window === null) return pairsOfStep(step);
  const shape = { rowsPerPanel: windowPanelRows(window, Math.floor(Math.sqrt(PAIRS_PER_PANEL))), pairsPerPanel: PAIRS_PER_PANEL };
  const region = { rowRange: step.rowRange, colRange: step.colRange, strictUpper: step.isDiagonalBlock };
  let numPairs = 0;
  for (const panel of windowPanelGeometry(rowFirst, colFirst, region, window, shape)) numPairs += pairsInPanel(panel);
  return numPairs;
}

/** Blocks the rank at (vector block, replica) reads in the job's phases (any field slab reads the same). */
function blocksRead(job: JobSpec, vectorIdx: number, replIdx: number): number[] {
  const d = job.decomposition;
  const rank = rankOf(d, { vectorIdx, replIdx, fieldIdx: 0 });
  const nvl = numVectorLocal(job.numVector, d.numProcVector, 2);
  const blockFirst = (block: number): number => vectorBlockRange(job.numVector, nvl, block).begin;
  const blocks: number[] = [];
  for (const phaseIdx of range(d.phaseMin, d.phaseMax)) {
    if (job.metricSpec.numWay === 2) {
      const plan = blockCirculantPlan({ grid: d, rank, numVector: job.numVector, numPhase: d.numPhase, phaseIdx, halfDiagonal: d.halfDiagonal });
      for (const s of plan) if (stepTouchesWindow(job, s, blockFirst)) blocks.push(s.colBlock);
    } else {
      for (const u of slabPhaseUnits({ grid: d, rank, numPhase: d.numPhase, phaseIdx })) blocks.push(u.jBlock, u.kBlock);
    }
  }
  return blocks;
}

export function rankLayout(job: JobSpec, rank: number): RankLayout {
  if (job.metricSpec.numWay === 4) return quadRankLayout(job, rank);
  const d = job.decomposition;
  const coords = coordsOf(d, rank);
  const nvl = numVectorLocal(job.numVector, d.numProcVector, job.metricSpec.numWay);
  const nfl = numFieldLocal(job.numField, d.numProcField);
  const blockRanges = range(0, d.numProcVector - 1).map((b) => vectorBlockRange(job.numVector, nvl, b));
  const realOf = (b: number): number => blockRanges[b].end - blockRanges[b].begin;
  const phases = range(d.phaseMin, d.phaseMax);

  const pairSteps: PairStep[] = [];
  const tripleUnitsByStage: TripleUnit[][] = [];
  let tuples = 0;
  if (job.metricSpec.numWay === 2) {
    for (const phaseIdx of phases) {
      for (const s of blockCirculantPlan({ grid: d, rank, numVector: job.numVector, numPhase: d.numPhase, phaseIdx, halfDiagonal: d.halfDiagonal })) {
        if (!stepTouchesWindow(job, s, (block) => blockRanges[block].begin)) continue;
        const step: PairStep = { colBlock: s.colBlock, isDiagonalBlock: s.isDiagonalBlock, rowRange: s.rowRange, colRange: s.colRange };
        pairSteps.push(step);
        tuples += pairsComputedOf(step, job.window?.limits ?? null, blockRanges[s.rowBlock].begin, blockRanges[s.colBlock].begin);
      }
    }
  } else {
    for (const stageIdx of range(d.stageMin, d.stageMax)) {
      const units: TripleUnit[] = phases.flatMap((phaseIdx) =>
        slabPlan({ grid: d, rank, numPhase: d.numPhase, phaseIdx, numVectorLocal: nvl, numStage: d.numStage, stageIdx })
          .map((u) => ({
            part: u.part, jBlock: u.jBlock, kBlock: u.kBlock, sectionAxis: u.sectionAxis,
            sectionFirst: u.sectionRange.begin, sectionEnd: u.sectionRange.end,
          })));
      for (const u of units) {
        forEachTripleSlice(u, realOf(coords.vectorIdx), realOf(u.jBlock), realOf(u.kBlock), (_j, i, k) => {
          tuples += (i.end - i.first) * (k.end - k.first);
        });
      }
      tripleUnitsByStage.push(units);
    }
  }

  return {
    coords, numVectorLocal: nvl, numFieldLocal: nfl, fieldRange: fieldSlabRange(job.numField, nfl, coords.fieldIdx),
    blockRanges, pairSteps, tripleUnitsByStage, quadTiles: [],
    exchange: blockExchangePlan(d, rank, (vectorIdx, replIdx) => blocksRead(job, vectorIdx, replIdx)),
    totalComparisons: tuples * job.numField,
  };
}

/**
 * A 4-way rank (quadPlan.ts): every rank reads every vector (each "block" is all of them, nothing is exchanged) and
 * computes the tiles of its part for each phase and stage it runs; ranks of every grid axis are just parts.
 */
function quadRankLayout(job: JobSpec, rank: number): RankLayout {
  const d = job.decomposition;
  const numRanks = d.numProcVector * d.numProcField * d.numProcRepl;
  const all = { begin: 0, end: job.numVector };
  const quadTiles: QuadTile[] = [];
  for (const phaseIdx of range(d.phaseMin, d.phaseMax)) {
    for (const stageIdx of range(d.stageMin, d.stageMax)) {
      quadTiles.push(...quadPlan({
        numVector: job.numVector, rowsPerTile: QUAD_ROWS_PER_TILE, colsPerTile: QUAD_COLS_PER_TILE,
        numPart: numRanks * d.numPhase * d.numStage, partIdx: quadPartIndex(rank, d.numPhase, phaseIdx, d.numStage, stageIdx),
      }));
    }
  }
  const numQuads = quadTiles.reduce((sum, tile) => sum + quadsOfTile(job.numVector, tile), 0);
  return {
    coords: coordsOf(d, rank), numVectorLocal: job.numVector, numFieldLocal: job.numField, fieldRange: { begin: 0, end: job.numField },
    blockRanges: range(0, d.numProcVector - 1).map(() => all), pairSteps: [], tripleUnitsByStage: [], quadTiles,
    exchange: blockExchangePlan(d, rank, () => []),
    totalComparisons: numQuads * job.numField,
  };
}
