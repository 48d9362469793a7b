// 3-way slab plan (SPEC §6): which block units (part 1 tetrahedron, part 2 prisms, part 3 cube sections) one rank computes.
import { evenSplit, type IndexRange } from './evenSplit.js';
import { coordsOf, type ProcessGrid } from './grid.js';

/** 1: tetrahedron inside the own block; 2: prism (J, J); 3: one sixth of the (i, J, K) cube. */
export type SlabPart = 1 | 2 | 3;

/** Axis of the block cube a unit is cut along: 0 = own block (i), 1 = J block, 2 = K block. */
export type SlabAxis = 0 | 1 | 2;

/** A block unit without its vector range: which blocks meet, before sections and stages. */
export interface SlabBlockUnit {
  readonly part: SlabPart;
  /** The rank's own vector block. */
  readonly iBlock: number;
  readonly jBlock: number;
  readonly kBlock: number;
}

/** One block unit as computed in one stage. */
export interface SlabUnit extends SlabBlockUnit {
  readonly sectionAxis: SlabAxis;
  /**
   * Local vector indices [begin, end) along `sectionAxis` computed in the requested stage (may be
   * empty). Part 1 computes local i < j < k of block i with j in range; part 2 every i of block i and
   * j < k of block J with j in range; part 3 every (i, j, k) of blocks (i, J, K) whose index on
   * `sectionAxis` is in range.
   */
  readonly sectionRange: IndexRange;
}

/** Units per block row: 1 tetrahedron + (npv−1) prisms + (npv−1)(npv−2) cube sections; also the maximum number of phases. */
export function numSlabUnits(numProcVector: number): number {
  const others = numProcVector - 1;
  return 1 + others + others * (others - 1);
}

/**
 * CoMet's section number of part 3 (gm_section_num_part3): the order of (i, J, K) as one of the
 * 6 permutations. The 6 units holding the same three blocks (one per owner and (J, K) order) get
 * distinct numbers, so their sections tile the axis of the smallest block exactly once.
 */
export function sectionNumPart3(iBlock: number, jBlock: number, kBlock: number): number {
  if (iBlock < jBlock && jBlock < kBlock) return 0;
  if (iBlock < kBlock && kBlock < jBlock) return 1;
  if (jBlock < iBlock && iBlock < kBlock) return 2;
  if (jBlock < kBlock && kBlock < iBlock) return 3;
  if (kBlock < iBlock && iBlock < jBlock) return 4;
  return 5; // kBlock < jBlock < iBlock
}

/** Part 3 cuts along the axis of the smallest of the three block indices. */
export function sectionAxisPart3(iBlock: number, jBlock: number, kBlock: number): SlabAxis {
  const smallest = Math.min(iBlock, jBlock, kBlock);
  return smallest === iBlock ? 0 : smallest === jBlock ? 1 : 2;
}

/**
 * The canonical unit list of block row `iBlock`, in CoMet's loop order: the tetrahedron, then the
 * prisms for J = i+1, i+2, … (mod npv), then the cubes with K outer and J inner (both walking
 * away from i), skipping J = K.
 */
export function slabBlockUnits(numProcVector: number, iBlock: number): SlabBlockUnit[] {
  const npv = numProcVector;
  const units: SlabBlockUnit[] = [{ part: 1, iBlock, jBlock: iBlock, kBlock: iBlock }];
  for (let jOffset = 1; jOffset < npv; jOffset++) {
    const jBlock = (iBlock + jOffset) % npv;
    units.push({ part: 2, iBlock, jBlock, kBlock: jBlock });
  }
  for (let kOffset = 1; kOffset < npv; kOffset++) {
    for (let jOffset = 1; jOffset < npv; jOffset++) {
      if (jOffset === kOffset) continue;
      units.push({ part: 3, iBlock, jBlock: (iBlock + jOffset) % npv, kBlock: (iBlock + kOffset) % npv });
    }
  }
  return units;
}

/** Inputs of {@link slabPhaseUnits}. */
export interface SlabPhaseInput {
  readonly grid: ProcessGrid;
  readonly rank: number;
  /** 1 ≤ numPhase ≤ numSlabUnits(npv). */
  readonly numPhase: number;
  readonly phaseIdx: number;
}

/**
 * The block units `rank` computes in phase `phaseIdx` (all stages): phase p takes units
 * [floor(n·p/P), floor(n·(p+1)/P)) of the canonical list and the replicas split those in contiguous
 * chunks. Use it to know which blocks to fetch for the phase. Assumes a validated decomposition.
 */
export function slabPhaseUnits(input: SlabPhaseInput): SlabBlockUnit[] {
  const { grid, numPhase, phaseIdx } = input;
  const { vectorIdx, replIdx } = coordsOf(grid, input.rank);
  const units = slabBlockUnits(grid.numProcVector, vectorIdx);
  const phase = evenSplit(units.length, numPhase, phaseIdx);
  const mine = evenSplit(phase.end - phase.begin, grid.numProcRepl, replIdx);
  return units.slice(phase.begin + mine.begin, phase.begin + mine.end);
}

/** The section of one unit along its section axis, over all stages. */
export function slabSectionRange(unit: SlabBlockUnit, numVectorLocal: number): { axis: SlabAxis; range: IndexRange } {
  if (unit.part !== 3) return { axis: 1, range: { begin: 0, end: numVectorLocal } };
  const section = evenSplit(numVectorLocal, 6, sectionNumPart3(unit.iBlock, unit.jBlock, unit.kBlock));
  return { axis: sectionAxisPart3(unit.iBlock, unit.jBlock, unit.kBlock), range: section };
}

/** Stage `stageIdx` of `numStage` of one unit: its section range cut into numStage contiguous parts. */
export function slabUnitForStage(
  unit: SlabBlockUnit,
  numVectorLocal: number,
  numStage: number,
  stageIdx: number,
): SlabUnit {
  const { axis, range } = slabSectionRange(unit, numVectorLocal);
  const part = evenSplit(range.end - range.begin, numStage, stageIdx);
  return {
    ...unit,
    sectionAxis: axis,
    sectionRange: { begin: range.begin + part.begin, end: range.begin + part.end },
  };
}

/** Inputs of {@link slabPlan}. */
export interface SlabPlanInput extends SlabPhaseInput {
  /** Vectors per block, pad included (see numVectorLocal in grid.ts). */
  readonly numVectorLocal: number;
  readonly numStage: number;
  /** The stage to plan, 0 ≤ stageIdx < numStage. */
  readonly stageIdx: number;
}

/**
 * The units `rank` computes in one (phase, stage), with their section ranges; the engine runs it
 * stage by stage. Units whose stage range is empty are kept so every stage sees the same blocks.
 */
export function slabPlan(input: SlabPlanInput): SlabUnit[] {
  return slabPhaseUnits(input).map((unit) =>
    slabUnitForStage(unit, input.numVectorLocal, input.numStage, input.stageIdx),
  );
}
