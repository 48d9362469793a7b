// The checks of a `--top N` job before any work: an analysis that declares the result, the options it cannot be
// combined with, and an existing file.
import { existsSync } from 'node:fs';
import { UserError } from '../../core/errors.js';
import { analysesWithResult, type Analysis, type StrongerValues } from '../../analyses/index.js';
import { MAX_TOP_RECORDS } from '../../core/limits.js';
import { topRecordsFilePath, type TopRecordsSpec } from '../finalize/topRecordsSink.js';
import type { JobSpec } from './jobSpec.js';

/** The job's top-N sink (count, and the analysis's stronger values), or null when it keeps every record. */
export function topRecordsSpecOf(job: JobSpec, analysis: Pick<Analysis, 'strongerValues'>): TopRecordsSpec | null {
  const count = job.top ?? null;
  if (count === null) return null;
  const stronger: StrongerValues | undefined = analysis.strongerValues;
  if (stronger === undefined) throw new Error('a top-N job of an analysis without strongerValues (checkTopJob refuses it)');
  return { count, stronger };
}

/** Refuses, in one line, a job whose `top` cannot be kept; nothing for a job without one. */
export function checkTopJob(job: JobSpec, analysis: Analysis): void {
  const count = job.top ?? null;
  if (count === null) return;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_TOP_RECORDS) {
    throw new UserError(`--top ${count}: must be an integer from 1 to ${MAX_TOP_RECORDS}`);
  }
  if (!analysis.results.includes('top-n') || analysis.strongerValues === undefined) {
    const withTop = analysesWithResult('top-n');
    throw new UserError(`--top: --metric ${analysis.name} declares no top-N result (metrics with one: ${withTop.join(', ')})`);
  }
  if (job.matrix !== undefined && job.matrix !== null) throw new UserError('--top keeps records; --matrix writes every pair\'s value: give one of them');
  if (job.outputStub === null) throw new UserError('--top needs --output STUB (the records are written to STUB_top.bin)');
  const path = topRecordsFilePath(job.outputStub);
  if (!job.force && existsSync(path)) throw new UserError(`output ${path} already exists; use --force to overwrite`);
}
