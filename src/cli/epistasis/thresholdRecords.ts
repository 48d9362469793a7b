// `snptally epistasis --score-threshold X --out STUB`: every tuple whose score is past X (K2 ≤ X; MI, IG ≥ X), as
// SPEC §7 records with plain SNP indices and the float32 score, one file per rank, readable by `snptally dump`. The
// engine's threshold-records sink keeps every tuple whose float32 engine value reaches X's (a superset: the map is
// monotone, float32 rounding may tie); each kept tuple's table is rebuilt from the genotypes and its double score
// decides exactly. Files go under temporary names and are renamed together with `<stub>.run.json` (and the input's
// sidecar as `<stub>.input.json` when it was converted from a fileset or VCF).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { Threshold } from '../../core/thresholds.js';
import { engineValueOf, epistasisScore, strongerScores } from '../../analyses/epistasis/index.js';
import {
  commitStagedFiles, discardStagedFiles, metricsFilePath, MetricsFileWriter, readMetricsFileChunks, stageJsonFile, type PreparedSidecar,
  type StagedFile,
} from '../../io/index.js';
import type { RunResult } from '../engineApi.js';
import { inProcessRanks, type SearchRanks } from './searchRanks.js';
import { inputSidecarPathOf } from '../runCompanions.js';
import { runInfoJson, runInfoPathOf } from '../runInfoFile.js';
import { epistasisJob, packedGenotypesOf, scoringOf, type EpistasisSearchOptions } from './epistasisSearch.js';
import { GenotypeRows, tupleTable } from './tupleTables.js';

/** Where the records go and what they keep. */
export interface ThresholdRecordsOutput {
  readonly stub: string;
  readonly scoreThreshold: number;
  readonly force: boolean;
  /** The input as given, and its sidecar file when it has one of its own (null: a converted input's, kept beside the output). */
  readonly input: { readonly kind: string; readonly givenPath: string; readonly sidecarPath: string | null };
}

export interface ThresholdRecordsResult {
  readonly files: readonly string[];
  readonly numRecords: number;
  readonly run: RunResult;
}

/** The engine's threshold: keep float32 values ≥ the float32 engine value of the score threshold (none when that is 0). */
export function engineThresholdOf(options: EpistasisSearchOptions, scoreThreshold: number): Threshold {
  const { k2Scale } = scoringOf(options.sidecar.numField, options.order);
  const key = Math.fround(engineValueOf(options.score, scoreThreshold, k2Scale));
  if (!(key > 0)) return { kind: 'none' };
  // The float32 just below `key`: a value > it is ≥ key.
  const bits = new Uint32Array(new Float32Array([key]).buffer);
  bits[0] -= 1;
  return { kind: 'single', value: new Float32Array(bits.buffer)[0] };
}

/** The record files of the ranks, then the companions (`<stub>.run.json`, a converted input's sidecar). */
function outputPathsOf(options: EpistasisSearchOptions, output: ThresholdRecordsOutput): { readonly records: string[]; readonly companions: string[] } {
  const numRanks = options.decomposition.numProcVector * options.decomposition.numProcRepl;
  const records = Array.from({ length: numRanks }, (_, rank) => metricsFilePath(output.stub, rank, numRanks));
  const companions = [runInfoPathOf(output.stub), ...(output.input.sidecarPath === null ? [inputSidecarPathOf(output.stub)] : [])];
  return { records, companions };
}

/** Refuses to replace existing output files without `force`. */
export function checkThresholdOutputs(options: EpistasisSearchOptions, output: ThresholdRecordsOutput): void {
  const { records, companions } = outputPathsOf(options, output);
  for (const path of [...records, ...companions]) {
    if (!output.force && existsSync(path)) throw new UserError(`--out ${output.stub}: ${path} exists (give --force to replace it)`);
  }
}

/** Runs the engine with the threshold in this process and writes the exact records; returns the files written. */
export async function writeThresholdRecords(options: EpistasisSearchOptions, output: ThresholdRecordsOutput): Promise<ThresholdRecordsResult> {
  const written = await writeThresholdRecordsAsRanks(options, output, inProcessRanks());
  if (written === null) throw new Error('in-process threshold records without a result');
  return written;
}

/**
 * Runs the engine with the threshold as `ranks` and writes the exact records of their own rank files (every rank's in
 * one process; under MPI each process its own, the reader the companions too); returns the files and the records of
 * all ranks on the reader, null on the other processes.
 */
export async function writeThresholdRecordsAsRanks(
  options: EpistasisSearchOptions, output: ThresholdRecordsOutput, ranks: SearchRanks,
): Promise<ThresholdRecordsResult | null> {
  const { sidecar, order, score } = options;
  checkThresholdOutputs(options, output);
  const finalPaths = outputPathsOf(options, output).records;
  const numRanks = finalPaths.length;
  const keepsSidecar = output.input.sidecarPath === null;
  const directory = mkdtempSync(join(tmpdir(), 'snptally-epistasis-records-'));
  const writers: MetricsFileWriter[] = [];
  const staged: StagedFile[] = [];
  try {
    const job = epistasisJob(options, join(directory, 'records'), { threshold: engineThresholdOf(options, output.scoreThreshold) });
    const run = await ranks.runJob(job, options.onProgress === undefined ? {} : { onProgress: options.onProgress });
    const { tables, scratch } = scoringOf(sidecar.numField, order);
    const rows = new GenotypeRows(packedGenotypesOf(options), sidecar.numField, sidecar.numMissingCalls > 0);
    const passes = strongerScores(score) === 'smaller'
      ? (value: number): boolean => value <= output.scoreThreshold : (value: number): boolean => value >= output.scoreThreshold;
    const numControls = sidecar.caseControl!.numControls;
    let numRecords = 0;
    for (const rank of ranks.ownRanks(numRanks)) {
      const writer = MetricsFileWriter.create(finalPaths[rank], order);
      writers.push(writer);
      const record = new Uint32Array(order + 1);
      const value = new Float32Array(record.buffer, 4 * order, 1);
      for (const chunk of readMetricsFileChunks(metricsFilePath(job.outputStub!, rank, numRanks), order)) {
        for (let r = 0; r < chunk.values.length; r++) {
          const tuple = Array.from(chunk.coords.subarray(r * order, (r + 1) * order));
          const tupleScore = epistasisScore(score, tables, tupleTable(rows, tuple, numControls, sidecar.numField), order, scratch);
          if (!passes(tupleScore)) continue;
          record.set(tuple);
          value[0] = tupleScore;
          writer.appendRecordWords(record, 1);
          numRecords++;
        }
      }
      writer.finish();
    }
    // Every process has its files written (a failing one ends the job) before any is renamed into place.
    const totalRecords = await ranks.sumOverProcesses(numRecords);
    if (run !== null) staged.push(...stageCompanions(options, output, { keepsSidecar, files: finalPaths, run }));
    for (const writer of writers) writer.commit();
    commitStagedFiles(staged);
    return run === null ? null : { files: finalPaths, numRecords: totalRecords, run };
  } catch (error) {
    for (const writer of writers) writer.discard();
    discardStagedFiles(staged);
    throw error;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** `<stub>.run.json` (metric, way, files, where the SNP names are) and the kept sidecar, under temporary names. */
function stageCompanions(
  options: EpistasisSearchOptions, output: ThresholdRecordsOutput, written: { keepsSidecar: boolean; files: readonly string[]; run: RunResult },
): StagedFile[] {
  const staged: StagedFile[] = [];
  const sidecar: PreparedSidecar = options.sidecar;
  try {
    if (written.keepsSidecar) staged.push(stageJsonFile(inputSidecarPathOf(output.stub), sidecar));
    staged.push(stageJsonFile(runInfoPathOf(output.stub), runInfoJson(output.stub, {
      metric: 'epistasis', numWay: options.order, numVector: sidecar.numVector, numField: sidecar.numField,
      outputFiles: written.files, sidecar: written.keepsSidecar ? inputSidecarPathOf(output.stub) : output.input.sidecarPath,
      input: { kind: output.input.kind, path: output.input.givenPath },
      run: { score: options.score, scoreThreshold: output.scoreThreshold, seconds: written.run.seconds, backend: written.run.backend },
    })));
  } catch (error) {
    discardStagedFiles(staged);
    throw error;
  }
  return staged;
}
