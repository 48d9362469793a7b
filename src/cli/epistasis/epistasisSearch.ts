// The exact top-N of an epistasis run: the engine keeps the strongest candidates by their float32 engine values
// (analyses/epistasis engineValueOf, larger is stronger for every score), the candidates' tables are rebuilt from the
// genotypes and scored in double, and the N strongest by double score (ties: the lower tuple) are the answer — exact
// once the N-th has a float32 value above the weakest candidate's, else the engine runs again with more candidates.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PARAM, type EpistasisScore } from '../../core/types.js';
import { MAX_TOP_RECORDS } from '../../core/limits.js';
import {
  MarginalScratch, ScoreTables, engineValueOf, epistasisScore, k2ScaleOf, k2TableSlack, strongerScores, type EpistasisOrder,
} from '../../analyses/epistasis/index.js';
import { readMetricsFileRecords, SAMPLE_ROWS_READY, type PreparedSidecar } from '../../io/index.js';
import type { JobSpec, RunResult, StartedRunKernels } from '../engineApi.js';
import { inProcessRanks, type SearchRanks } from './searchRanks.js';
import { GenotypeRows, tupleTable, type PackedGenotypes, type TupleTable } from './tupleTables.js';

/** Where and how to search. */
export interface EpistasisSearchOptions {
  /** The packed file (or, with packedInMemory, the input's name). */
  readonly packedPath: string;
  /** The packed vectors in shared memory, final (an input prepared into memory): read instead of packedPath. Absent: none. */
  readonly packedInMemory?: Uint8Array | null;
  /** The prepared file's sidecar; its `caseControl` gives the classes. */
  readonly sidecar: PreparedSidecar;
  readonly order: EpistasisOrder;
  readonly score: EpistasisScore;
  readonly top: number;
  readonly backend: JobSpec['backend'];
  readonly numThreads: number;
  readonly decomposition: JobSpec['decomposition'];
  readonly finalize?: JobSpec['finalize'];
  readonly onProgress?: (done: number, total: number) => void;
  /** Kernel threads started ahead for the search's first engine run (SearchRunHooks.startedKernels); later runs start their own. */
  readonly startedKernels?: StartedRunKernels | null;
}

/** One tuple of the result: its vectors (ascending), double score and table. */
export interface EpistasisHit {
  readonly vectors: readonly number[];
  readonly score: number;
  readonly table: TupleTable;
}

export interface EpistasisSearchResult {
  readonly hits: readonly EpistasisHit[];
  /** Candidates the last engine run kept, and engine runs made (more than one only under float32 ties). */
  readonly numCandidates: number;
  readonly numEngineRuns: number;
  readonly run: RunResult;
}

/** Number of k-subsets of n items (a double: exact below 2^53 for the sizes a run takes). */
export function tupleCount(n: number, k: EpistasisOrder): number {
  if (k === 2) return (n * (n - 1)) / 2;
  if (k === 3) return (n * (n - 1) * (n - 2)) / 6;
  return (((n * (n - 1)) / 2) * (n - 2) * (n - 3)) / 12;
}

/** The score tables and scratch of a search: the analysis's own (same K2 table, so the same engine values). */
export function scoringOf(numField: number, order: EpistasisOrder): { readonly tables: ScoreTables; readonly k2Scale: number; readonly scratch: MarginalScratch } {
  const tables = new ScoreTables(numField + k2TableSlack(order));
  return { tables, k2Scale: k2ScaleOf(tables), scratch: new MarginalScratch() };
}

/** The engine job of a search over `options`' file: top-N records or threshold records to `stub`. */
export function epistasisJob(
  options: EpistasisSearchOptions, stub: string, records: { readonly top: number } | { readonly threshold: JobSpec['threshold'] },
): JobSpec {
  const { sidecar, order, score } = options;
  const caseControl = sidecar.caseControl!;
  return {
    metricSpec: {
      metric: 'epistasis', numWay: order, sparse: sidecar.numMissingCalls > 0, param: DEFAULT_PARAM, multiplier: 1,
      caseControl: { numControls: caseControl.numControls, score },
    },
    numVector: sidecar.numVector, numField: sidecar.numField, source: engineSourceOf(options),
    decomposition: options.decomposition, threshold: 'threshold' in records ? records.threshold : { kind: 'none' }, outputStub: stub,
    top: 'top' in records ? records.top : null, force: true, singlePrecisionOutput: false, backend: options.backend,
    finalize: options.finalize ?? 'auto', numThreads: options.numThreads, verify: false,
  };
}

/** Where the search's packed vectors lie. */
export function packedGenotypesOf(options: Pick<EpistasisSearchOptions, 'packedPath' | 'packedInMemory'>): PackedGenotypes {
  const packed = options.packedInMemory ?? null;
  return packed === null ? { kind: 'file', path: options.packedPath } : { kind: 'memory', packed };
}

/** The engine's source of the search's vectors: the packed file, or the memory (final: its state says so at once). */
function engineSourceOf(options: EpistasisSearchOptions): JobSpec['source'] {
  const packed = options.packedInMemory ?? null;
  if (packed === null) return { kind: 'file', path: options.packedPath };
  const state = new Int32Array(new SharedArrayBuffer(4));
  state[0] = SAMPLE_ROWS_READY;
  return { kind: 'memory', packed, state };
}

/** The reader's word after an engine run: the answer, or a run with more candidates. */
type SearchStep = { readonly done: true } | { readonly done: false; readonly wanted: number };

/** Runs the search in this process (every rank of its decomposition here). */
export async function searchEpistasis(options: EpistasisSearchOptions): Promise<EpistasisSearchResult> {
  const result = await searchEpistasisAsRanks(options, inProcessRanks());
  if (result === null) throw new Error('an in-process search without a result');
  return result;
}

/**
 * Runs the search as `ranks` (collective under MPI: every process calls it); the engine's files go to a scratch
 * directory that is removed. Returns the result on the reader, null on the other processes.
 */
export async function searchEpistasisAsRanks(options: EpistasisSearchOptions, ranks: SearchRanks): Promise<EpistasisSearchResult | null> {
  const { sidecar, order, score } = options;
  const caseControl = sidecar.caseControl ?? null;
  if (caseControl === null) throw new Error('searchEpistasis needs a case-control prepared file');
  const numField = sidecar.numField;
  const sparse = sidecar.numMissingCalls > 0;
  const numTuples = tupleCount(sidecar.numVector, order);
  const { tables, k2Scale, scratch } = scoringOf(numField, order);
  const rows = ranks.isReader ? new GenotypeRows(packedGenotypesOf(options), numField, sparse) : null;
  const directory = mkdtempSync(join(tmpdir(), 'snptally-epistasis-'));
  const sign = strongerScores(score) === 'larger' ? 1 : -1;
  let wanted = Math.min(numTuples, Math.max(2 * options.top, options.top + 64), MAX_TOP_RECORDS);
  try {
    for (let numEngineRuns = 1; ; numEngineRuns++) {
      const stub = join(directory, `top${numEngineRuns}`);
      const job = epistasisJob(options, stub, { top: wanted });
      const hooks = { onProgress: options.onProgress, startedKernels: numEngineRuns === 1 ? options.startedKernels : null };
      const run = await ranks.runJob(job, hooks);
      let answer: EpistasisSearchResult | null = null;
      let step: SearchStep = { done: true };
      if (run !== null && rows !== null) {
        const candidates: (EpistasisHit & { readonly key: number })[] = [];
        for (const record of readMetricsFileRecords(`${stub}_top.bin`, order)) {
          const vectors = [...record.coords].sort((a, b) => a - b);
          const table = tupleTable(rows, vectors, caseControl.numControls, numField);
          const value = epistasisScore(score, tables, table, order, scratch);
          const key = Math.fround(engineValueOf(score, value, k2Scale));
          if (key !== record.value) {
            throw new Error(`epistasis: the engine's value ${record.value} of tuple ${vectors.join(',')} is not ${key} from its genotypes`);
          }
          candidates.push({ vectors, score: value, table, key });
        }
        candidates.sort((a, b) => (a.score !== b.score ? sign * (b.score - a.score) : compareTuples(a.vectors, b.vectors)));
        const hits = candidates.slice(0, options.top);
        const complete = candidates.length < wanted || wanted >= numTuples;
        const weakestKey = candidates.reduce((least, candidate) => Math.min(least, candidate.key), Infinity);
        // A tuple outside the candidates has a float32 value ≤ the weakest candidate's: strictly below the N-th's means weaker.
        const separated = hits.length < options.top || hits[hits.length - 1].key > weakestKey;
        if (complete || separated || wanted >= MAX_TOP_RECORDS) {
          answer = { hits: hits.map(({ vectors, score: s, table }) => ({ vectors, score: s, table })), numCandidates: candidates.length, numEngineRuns, run };
        } else {
          step = { done: false, wanted: Math.min(numTuples, 8 * wanted, MAX_TOP_RECORDS) };
        }
      }
      step = await ranks.share(step);
      if (step.done) return answer;
      wanted = step.wanted;
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
    // Nothing once the first run took them.
    await options.startedKernels?.cancel();
  }
}

function compareTuples(a: readonly number[], b: readonly number[]): number {
  for (let t = 0; t < a.length; t++) if (a[t] !== b[t]) return a[t] - b[t];
  return 0;
}
