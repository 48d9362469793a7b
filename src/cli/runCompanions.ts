// The files `run --output STUB` writes besides the rank files: `<stub>.run.json` and, for a PLINK/VCF input, its
// sidecar kept as `<stub>.input.json` (and, for its samples in memory, `<stub>.sample-missing.bin`). The engine checks them with the rank files (existing files, the run's own
// inputs) and renames them into place after those, run.json last (src/engine/run/runOutputs.ts).
import { discardStagedFiles, sampleMissingFileBytes, stageFile, stageJsonFile, stageSidecarFile, type PreparedSidecar, type StagedFile } from '../io/index.js';
import type { Threshold } from '../core/thresholds.js';
import type { JobSpec, RunResult } from './engineApi.js';
import { buildRunJson } from './runReport.js';
import { runInfoJson, runInfoPathOf } from './runInfoFile.js';
import type { RunInput } from './runInput.js';

/** What the engine is told of the companions (its CompanionOutputs). */
export interface RunCompanions {
  readonly paths: readonly string[];
  readonly inputPaths: readonly string[];
  stage(result: RunResult): StagedFile[];
}

/** `<stub>.input.json`: where a converted input's sidecar is kept (its own lives in a temporary directory). */
export function inputSidecarPathOf(stub: string): string {
  return `${stub}.input.json`;
}

/** `<stub>.sample-missing.bin`: each sample's missing calls, of a run whose samples were transposed in memory. */
export function sampleMissingPathOf(stub: string): string {
  return `${stub}.sample-missing.bin`;
}

/**
 * The `--json` object of a run, naming the input the user gave (not the temporary file a PLINK/VCF input became);
 * printed, and kept in run.json.
 */
export function runJsonOf(spec: JobSpec, result: RunResult, threshold: Threshold, input: RunInput | null): Record<string, unknown> {
  const runJson = buildRunJson(spec, result, threshold);
  if (input !== null) runJson.inputPath = input.givenPath;
  return runJson;
}

/** The companions of a run with `--output`, or undefined without. */
export function runCompanions(spec: JobSpec, threshold: Threshold, input: RunInput | null): RunCompanions | undefined {
  const stub = spec.outputStub;
  if (stub === null) return undefined;
  const inMemory = input?.inMemory ?? null;
  const keepsSidecar = input !== null && ((input.sidecar !== null && input.sidecarPath === null) || inMemory !== null);
  const runInfoPath = runInfoPathOf(stub);
  // The missing calls' file is made as soon as the rows are described, while the run computes, not when it commits.
  const missingBytes = inMemory === null ? null
    : readyValue(inMemory.rows.done.then((rows) => sampleMissingFileBytes(rows.missingCalls, spec.numField)));
  return {
    paths: [...(keepsSidecar ? [inputSidecarPathOf(stub)] : []), ...(inMemory === null ? [] : [sampleMissingPathOf(stub)]), runInfoPath],
    inputPaths: input?.readPaths ?? [],
    // After the run has awaited the input's check: rows in memory are described by then.
    stage(result: RunResult): StagedFile[] {
      const staged: StagedFile[] = [];
      const sidecar = keepsSidecar ? inputSidecarPathOf(stub) : input?.sidecarPath ?? null;
      try {
        const written = inMemory?.result() ?? null;
        const kept: PreparedSidecar | null = written?.sidecar ?? input?.sidecar ?? null;
        if (keepsSidecar && kept !== null) staged.push(stageSidecarFile(inputSidecarPathOf(stub), kept));
        if (written !== null) {
          staged.push(stageFile(sampleMissingPathOf(stub), missingBytes?.value ?? sampleMissingFileBytes(written.missingCalls, spec.numField)));
        }
        staged.push(stageJsonFile(runInfoPath, runInfoJson(stub, {
          metric: spec.metricSpec.metric,
          numWay: spec.metricSpec.numWay,
          numVector: spec.numVector,
          numField: spec.numField,
          outputFiles: result.outputFiles,
          sidecar,
          input: input === null ? null : { kind: input.kind, path: input.givenPath },
          run: runJsonOf(spec, result, threshold, input),
        })));
      } catch (error) {
        discardStagedFiles(staged);
        throw error;
      }
      return staged;
    },
  };
}

/** Holds what `promise` resolves with once it has (null before, and after a rejection, which is handled elsewhere). */
function readyValue<T>(promise: Promise<T>): { readonly value: T | null } {
  const ready: { value: T | null } = { value: null };
  promise.then((value) => { ready.value = value; }, () => undefined);
  return ready;
}
