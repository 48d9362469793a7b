// `snptally plink --distance …`: runs `--metric distance` over the input's samples with PLINK's selection and autosomes
// (`run --individuals --autosome`: transposed in the run's memory) for the exact allele-count distances over the SNPs
// both called (a float64 lower triangle), while it reads the same SNP rows for PLINK 1.9's missing-call rescaling
// (snpRowMissing.ts, distanceMissing.ts); writes PLINK 1.9's .dist / .mibs / .mdist (text, gz, bin, bin4) with their
// .id files and the log, all renamed into place together.
import { closeSync, createWriteStream, fstatSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { UserError } from '../../core/errors.js';
import {
  distanceMatrixChunks, readSidecar, readTextLines, stageFile, temporaryPathFor, type DistanceMatrixLayout, type PreparedSidecar,
  type StagedFile,
} from '../../io/index.js';
import { logHeaderLines, runFrontEndCommand, type FrontEndSession } from './frontEndSession.js';
import { distanceMatrices, distanceMatrixPath, distanceOutputPaths, parseDistanceFlags, type DistanceKinds, type DistanceRequest } from './distanceFlags.js';
import { rescaleDistances, talliesOfMissingCalls, type MissingTallies } from './distanceMissing.js';
import { openChildGenotypes } from './frontEndGenotypes.js';
import { missingCallsOfSnpRows } from './snpRowMissing.js';
import { inputSidecarPathOf } from '../runCompanions.js';
import { nextRunInputOpened } from '../runMilestones.js';

/** A sample's PLINK IDs (FID null for a VCF sample). */
interface SampleName { readonly fid: string | null; readonly iid: string }

/**
 * PLINK 1.9's .id file: FID and IID, tab-separated, no header. A VCF sample ID becomes PLINK 1.9's FID and IID as its
 * default --id-delim rule does: split at its one '_', or both the whole ID when it has none.
 * @throws UserError for a VCF sample ID with several '_' (PLINK 1.9 refuses it too).
 */
function idFileText(samples: readonly SampleName[]): string {
  return samples.map(({ fid, iid }) => {
    if (fid !== null) return `${fid}\t${iid}\n`;
    const parts = iid.split('_');
    if (parts.length > 2) throw new UserError(`plink: VCF sample ID '${iid}' has several '_' (PLINK 1.9 reads one '_' as the FID/IID delimiter)`);
    return parts.length === 2 ? `${parts[0]}\t${parts[1]}\n` : `${iid}\t${iid}\n`;
  }).join('');
}

/**
 * Founder flags of the samples (PLINK 1.9 computes allele frequencies from founders: both parent IDs 0 in the .fam);
 * every VCF sample is a founder, and with --nonfounders every sample counts as one.
 */
export async function foundersOf(request: Pick<DistanceRequest, 'input' | 'nonfounders'>, samples: readonly SampleName[]): Promise<Uint8Array> {
  const founder = new Uint8Array(samples.length).fill(1);
  if (request.input.flag !== '--bfile' || request.nonfounders) return founder;
  const famPath = `${request.input.path.endsWith('.bed') ? request.input.path.slice(0, -4) : request.input.path}.fam`;
  const nonFounders = new Set<string>();
  for await (const { text } of readTextLines(famPath)) {
    const [fid, iid, father, mother] = text.trim().split(/\s+/);
    if (iid !== undefined && (father !== '0' || mother !== '0')) nonFounders.add(`${fid}\t${iid}`);
  }
  samples.forEach(({ fid, iid }, s) => { if (nonFounders.has(`${fid ?? iid}\t${iid}`)) founder[s] = 0; });
  return founder;
}

/** The layout of one of PLINK's distance matrices. */
function layoutOf(request: DistanceRequest, kind: keyof DistanceKinds, numSample: number, numSnp: number): DistanceMatrixLayout {
  const halfRecip = 0.5 / numSnp;
  const encoding = request.encoding === 'gz' ? 'text' : request.encoding;
  const common = { numSample, shape: request.shape, encoding, previousValueOnBin4Diagonal: false, diagonalInTextTriangle: false } as const;
  if (kind === 'ibs') return { ...common, valueOf: (d) => 1.0 - d * halfRecip, diagonal: 1, diagonalInTextTriangle: true };
  if (kind === 'oneMinusIbs') return { ...common, valueOf: (d) => d * halfRecip, diagonal: 0 };
  return { ...common, valueOf: (d) => d, diagonal: 0, previousValueOnBin4Diagonal: true };
}

/** Writes one matrix under a temporary name beside its final path; gz compresses the text. */
async function stageMatrix(finalPath: string, chunks: Generator<Uint8Array>, gzip: boolean): Promise<StagedFile> {
  const temporaryPath = temporaryPathFor(finalPath);
  try {
    if (gzip) {
      await pipeline(Readable.from(chunks), createGzip(), createWriteStream(temporaryPath, { flags: 'wx' }));
    } else {
      const fd = openSync(temporaryPath, 'wx');
      try {
        for (const chunk of chunks) {
          let done = 0;
          while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done);
        }
      } finally {
        closeSync(fd);
      }
    }
  } catch (error) {
    rmSync(temporaryPath, { force: true });
    throw error;
  }
  return { finalPath, temporaryPath };
}

/** The run's float64 lower triangle without diagonal (n(n − 1)/2 values), read in pieces (it may exceed 2 GiB). */
function readTriangle(path: string, numSample: number): Float64Array {
  const values = new Float64Array((numSample * (numSample - 1)) / 2);
  const bytes = new Uint8Array(values.buffer);
  const fd = openSync(path, 'r');
  try {
    if (fstatSync(fd).size !== bytes.length) throw new Error(`${path} has ${fstatSync(fd).size} bytes, not ${bytes.length}`);
    for (let done = 0; done < bytes.length;) {
      const got = readSync(fd, bytes, done, Math.min(1 << 26, bytes.length - done), done);
      if (got === 0) throw new Error(`${path} ended early`);
      done += got;
    }
  } finally {
    closeSync(fd);
  }
  return values;
}

/** Runs a --distance command line (flags as PLINK's argument list). */
export async function runDistance(flags: readonly string[]): Promise<void> {
  const request = parseDistanceFlags(flags);
  await runFrontEndCommand({ out: request.out, paths: distanceOutputPaths(request), force: request.force }, async (session) => {
    const { scratch, staged, run } = session;
    // One run computes the exact distances over the samples transposed in its memory (`run --individuals`), while
    // the front end reads the same selection's SNP rows for PLINK's missing-call tallies, once the run's input is open.
    const stub = join(scratch, 'counts');
    const counting = run(['run', '--metric', 'distance', request.input.flag, request.input.path, ...request.selectionArgs, '--individuals', '--autosome',
      ...request.resourceArgs, '--matrix', 'triangle', '--matrix-format', 'bin', '--out', stub, '--json']);
    // The run opens its input first (it cannot before its first await, so the wait starts in time); a run that fails
    // before ends the wait too.
    const inputOpened = nextRunInputOpened(counting);
    let tallies: MissingTallies;
    let numSnp: number;
    try {
      await inputOpened;
      const source = await openChildGenotypes(request.input, request.selectionArgs);
      const founder = request.flatMissing ? null : await foundersOf(request, source.samples.map(({ fid, iid }) => ({ fid, iid })));
      const calls = await missingCallsOfSnpRows(source, founder);
      numSnp = calls.numSnp;
      tallies = talliesOfMissingCalls(calls, { numSample: source.sampleIds.length, numSnp });
    } finally {
      await counting.catch(() => undefined);
    }
    await counting;
    const sidecar = readSidecar(inputSidecarPathOf(stub));
    if (sidecar.sampleNames === undefined) throw new Error('a sample-major sidecar without sampleNames');
    const samples = sidecar.sampleNames;
    if (samples.length < 2) throw new UserError('plink: --distance needs at least 2 samples');
    if (samples.length !== tallies.perSample.length || sidecar.numField !== numSnp) {
      throw new Error(`the run read ${samples.length} samples × ${sidecar.numField} SNPs, the missing tallies ${tallies.perSample.length} × ${numSnp}`);
    }
    const idText = idFileText(samples);
    const distances = readTriangle(`${stub}.dist.bin`, samples.length);
    rescaleDistances(distances, tallies, samples.length);
    for (const { extension, kind } of distanceMatrices(request)) {
      const chunks = distanceMatrixChunks(distances, layoutOf(request, kind, samples.length, sidecar.numField));
      staged.push(await stageMatrix(distanceMatrixPath(request, extension), chunks, request.encoding === 'gz'));
      staged.push(stageFile(`${request.out}.${extension}.id`, idText));
    }
    const log = distanceLog(request, { session, sidecar });
    staged.push(stageFile(`${request.out}.log`, log));
    return log;
  });
}

/** What the log reports. */
interface DistanceLogFacts {
  readonly session: Pick<FrontEndSession, 'started' | 'commands'>;
  readonly sidecar: PreparedSidecar;
}

/** PLINK 1.9's log, in its shape: options in effect, what was kept, what was written; plus the snptally commands run. */
function distanceLog(request: DistanceRequest, facts: DistanceLogFacts): string {
  const written = { alleleCount: 'Distances (allele counts)', ibs: 'IBS matrix', oneMinusIbs: 'Distances (proportions)' } as const;
  return [
    ...logHeaderLines('PLINK 1.9 front end', request.optionsInEffect, facts.session),
    `${facts.sidecar.numField} autosomal variants and ${facts.sidecar.numVector} people pass filters and QC.`,
    `Distance matrix calculation complete (${request.flatMissing ? 'flat' : 'allele-frequency weighted'} missing-call rescaling).`,
    ...distanceMatrices(request).map(({ extension, kind }) =>
      `${written[kind]} written to ${distanceMatrixPath(request, extension)} , IDs to ${request.out}.${extension}.id .`),
    '',
    `End time: ${new Date().toString()}`,
    '',
  ].join('\n');
}
