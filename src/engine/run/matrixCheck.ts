// The checks of a dense-matrix job before any work: an analysis that declares the result, the options it cannot be
// combined with, an existing file, and the file's size against the free disk space.
import { existsSync } from 'node:fs';
import { UserError } from '../../core/errors.js';
import { analysesWithResult, type Analysis } from '../../analyses/index.js';
import { checkMatrixDiskSpace } from '../../io/index.js';
import { matrixFileSpec } from '../finalize/matrixSink.js';
import type { JobSpec } from './jobSpec.js';

/** Refuses, in one line, a job whose `matrix` cannot be written; returns the matrix file's path, null for a job without one. */
export function checkMatrixJob(job: JobSpec, analysis: Analysis): string | null {
  const output = job.matrix ?? null;
  if (output === null) return null;
  const dense = analysis.denseMatrix;
  if (!analysis.results.includes('dense-matrix') || dense === undefined) {
    const withMatrix = analysesWithResult('dense-matrix');
    throw new UserError(
      `--matrix holds one value per pair, and --metric ${analysis.name} has no dense-matrix result (metrics with one: ${withMatrix.join(', ')})`);
  }
  if (job.metricSpec.numWay !== 2) throw new UserError('--matrix is a matrix of pairs: it needs --way 2');
  if (job.outputStub === null) throw new UserError(`--matrix needs --out STUB (the matrix is written to STUB.${dense.extension})`);
  if (job.threshold.kind !== 'none') {
    throw new UserError('--matrix writes every pair\'s value; --threshold applies to records (run without --matrix for them)');
  }
  if (job.singlePrecisionOutput) throw new UserError('--single-precision does not apply to --matrix (use --matrix-format bin4 for float32)');
  const d = job.decomposition;
  if (d.phaseMin !== 0 || d.phaseMax !== d.numPhase - 1) {
    throw new UserError(`--matrix needs every pair: compute all phases (not --phase-min ${d.phaseMin} --phase-max ${d.phaseMax} of ${d.numPhase})`);
  }
  const spec = matrixFileSpec(job.outputStub, job.numVector, output, dense);
  if (!job.force && existsSync(spec.finalPath)) throw new UserError(`output ${spec.finalPath} already exists; use --force to overwrite`);
  checkMatrixDiskSpace(spec);
  return spec.finalPath;
}
