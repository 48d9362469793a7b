// Core value types shared by every layer: metrics, ways, problem sizes.
import type { RealPrecision } from './realProblems.js';

/**
 * The built-in metrics (src/analyses): Custom Correlation Coefficient, DUO, or LD r² (squared Pearson correlation of
 * allele-1 dosages g = c1 ∈ {0,1,2} over the samples present in both SNPs; 2-way only).
 */
export type BuiltInMetric = 'ccc' | 'duo' | 'r2';

/** A metric's name: a built-in one, or that of an analysis loaded from its own module. */
export type MetricKind = string;

/** 2-way (pairs), 3-way (triples) or 4-way (quadruples: epistasis only, one value per tuple). */
export type NumWay = 2 | 3 | 4;

/** `numWay` of a path that has only 2- and 3-way forms (checkJob refuses 4-way for analyses without it). */
export function pairOrTripleWay(numWay: NumWay): 2 | 3 {
  if (numWay === 4) throw new Error('a 4-way run reached a 2-/3-way-only path (Analysis.ways refuses it)');
  return numWay;
}

/** Metric settings of a run (SPEC §3). */
export interface MetricSpec {
  /** The analysis that computes it (src/analyses). */
  readonly metric: MetricKind;
  readonly numWay: NumWay;
  /** Sparse mode: the code `10` means missing. */
  readonly sparse: boolean;
  /** The `p` of SPEC §3 (default 2/3). */
  readonly param: number;
  /** The `mult` of SPEC §3 (default 9/2 for CCC, 4 for DUO). */
  readonly multiplier: number;
  /** The float type of real-valued metrics (SPEC §8, Czekanowski); absent: double. 2-bit metrics ignore it. */
  readonly precision?: RealPrecision;
  /** Case-control analyses (epistasis): fields are samples ordered [controls | cases] and the score to rank by. */
  readonly caseControl?: CaseControlSpec;
}

/** Scores of case-control epistasis (src/analyses/epistasis): K2 (smaller is stronger), MI and IG in bits (larger). */
export const EPISTASIS_SCORES = ['k2', 'mi', 'ig'] as const;
export type EpistasisScore = (typeof EPISTASIS_SCORES)[number];

/** Which scores are stronger: smaller K2 (a log marginal likelihood's negative), larger MI and IG. */
export function strongerScores(score: EpistasisScore): 'larger' | 'smaller' {
  return score === 'k2' ? 'smaller' : 'larger';
}

/** The classes of a case-control run: fields [0, numControls) are controls, the rest cases. */
export interface CaseControlSpec {
  readonly numControls: number;
  readonly score: EpistasisScore;
}

/** Global problem size. */
export interface ProblemSize {
  readonly numVector: number;
  readonly numField: number;
}

/** Bits counted per field: CCC (and r², whose dosage is CCC's c1) count both bits (C = 2), DUO only the low one (C = 1). */
export function countedBitsPerField(metric: MetricKind): 1 | 2 {
  return metric === 'duo' ? 1 : 2;
}

/** SPEC §3 defaults (r² has no multiplier: 1, unused). */
export function defaultMultiplier(metric: MetricKind): number {
  if (metric === 'r2') return 1;
  return metric === 'ccc' ? 9 / 2 : 4;
}
export const DEFAULT_PARAM = 2 / 3;

/** Number of table entries of one pair or triple: 2^way. */
export function numEntries(numWay: NumWay): 4 | 8 {
  return numWay === 2 ? 4 : 8;
}
