// `snptally plink --make-rel / --make-grm-bin`: transposes the input's samples into memory with PLINK's selection and
// plink2's autosomes (as `run --individuals --autosome` does, on the transpose workers), standardizes each SNP by its founder allele frequency, sums the
// cross products over SNP blocks in float64 (OpenBLAS dsyrk, else a plain loop), divides by each pair's SNPs both
// called (exact integer counts, distanceMissing.ts) as plink2 does, and writes plink2's files, renamed into place together.
import { availableParallelism } from 'node:os';
import {
  applyGrmDenominators, GenotypeCodeCounter, grmCodeValues, grmCrossProducts, plainSymmetricRankUpdate, snpsPerBlock,
  type GrmMissingCounts, type RankUpdate, type SampleMajorInput,
} from '../../analyses/grm/index.js';
import { UserError } from '../../core/errors.js';
import { stageFile, startSampleRowsInMemory, type PreparedSidecar } from '../../io/index.js';
import { loadOpenBlas } from '../../mgemm/index.js';
import { foundersOf } from './distanceCommand.js';
import { missingCallsBySnp, talliesOfMissingCalls } from './distanceMissing.js';
import { openChildGenotypes } from './frontEndGenotypes.js';
import { grmBinChunks, grmCountChunks, grmIdFileText, relMatrixChunks, stageChunks, type GrmMatrix } from './grmFiles.js';
import { grmOutputPaths, parseGrmFlags, type GrmRequest } from './grmFlags.js';
import { sampleIdFileText, type SampleIdPair } from './kingReport.js';
import { logHeaderLines, runFrontEndCommand, type FrontEndSession } from './frontEndSession.js';

/** Genotype counts per SNP of the founders and of every sample, one pass over the sample-major rows. */
function countGenotypes(rows: Uint8Array, input: { readonly numSample: number; readonly numSnp: number }, founder: Uint8Array): {
  founders: GenotypeCodeCounter; samples: GenotypeCodeCounter;
} {
  const founders = new GenotypeCodeCounter(input.numSnp);
  const samples = new GenotypeCodeCounter(input.numSnp);
  const bytesPerRow = Math.ceil(input.numSnp / 4);
  for (let r = 0; r < input.numSample; r++) {
    samples.add(rows, r * bytesPerRow);
    if (founder[r] === 1) founders.add(rows, r * bytesPerRow);
  }
  founders.flush();
  samples.flush();
  return { founders, samples };
}

/** plink2 refuses allele frequencies from fewer than 50 samples, or 50 founders without --nonfounders, unless --bad-freqs. */
function checkFrequencySource(request: GrmRequest, numSample: number, numFounder: number): void {
  if (request.badFreqs) return;
  if (numSample < 50) throw new UserError(`plink: --make-rel / --make-grm-bin: only ${numSample} samples to estimate allele frequencies from (plink2 needs 50; --bad-freqs overrides)`);
  if (!request.nonfounders && numFounder < 50) {
    throw new UserError(`plink: --make-rel / --make-grm-bin: only ${numFounder} founders to estimate allele frequencies from (plink2 needs 50; --nonfounders counts every sample, --bad-freqs overrides)`);
  }
}

/** Bytes the GRM holds at its peak: the n × n matrix, the pair counts, a block and its packed strip, the sample rows. */
function grmMemoryBytes(numSample: number, numSnp: number): number {
  const sampleRows = numSample * Math.ceil(numSnp / 4);
  return 8 * numSample * numSample + 2 * numSample * (numSample - 1) + 9 * numSample * snpsPerBlock(numSample, numSnp) + sampleRows;
}

/** The product's rank update and how the log names it: OpenBLAS when loadable, else the plain loop and why. */
function rankUpdateFor(threads: number): { update: RankUpdate; description: string } {
  const blas = loadOpenBlas();
  if (blas.available) return { update: blas.update(threads), description: `OpenBLAS dsyrk, ${threads} thread(s)` };
  return { update: plainSymmetricRankUpdate, description: `a plain single-thread loop (much slower: ${blas.reason})` };
}

/** Runs a --make-rel / --make-grm-bin command line (flags as PLINK's argument list). */
export async function runGrm(flags: readonly string[]): Promise<void> {
  const request = parseGrmFlags(flags);
  const outputs = grmOutputPaths(request);
  await runFrontEndCommand({ out: request.out, paths: outputs, force: request.force }, async (session) => {
    const { staged } = session;
    // The samples transposed into this process's memory by the transpose workers (as `run --individuals` does): no
    // `prepare` child, no sample-major file written and read back.
    const transposed = await startSampleRowsInMemory(await openChildGenotypes(request.input, request.selectionArgs), {});
    const { sidecar, missingCalls } = await transposed.done;
    if (sidecar.sampleNames === undefined) throw new Error('a sample-major sidecar without sampleNames');
    const samples: SampleIdPair[] = sidecar.sampleNames.map(({ fid, iid }) => ({ fid, iid }));
    if (samples.length < 2) throw new UserError('plink: --make-rel / --make-grm-bin need at least 2 samples (plink2: GRM construction requires at least two samples)');
    const input: SampleMajorInput = { rows: transposed.rows, numSample: samples.length, numSnp: sidecar.numField };
    const memoryBytes = grmMemoryBytes(input.numSample, input.numSnp);
    if (request.memoryMiB !== null && memoryBytes > request.memoryMiB * 2 ** 20) {
      throw new UserError(`plink: --memory ${request.memoryMiB}: the GRM of ${input.numSample} samples needs about ${Math.ceil(memoryBytes / 2 ** 20)} MiB`);
    }
    const founder = await foundersOf(request, samples);
    checkFrequencySource(request, samples.length, founder.reduce((sum, flag) => sum + flag, 0));
    const counts = countGenotypes(transposed.rows, input, founder);
    const { snps } = sidecar;
    const codeValues = grmCodeValues(counts.founders, counts.samples, { covariance: request.covariance },
      (s) => `variant ${snps.id[s] ?? s + 1} (${snps.chrom[s] ?? '?'}:${snps.pos[s] ?? '?'})`);
    // plink2 divides by each pair's count only when a missing call exists and meanimpute is off.
    const missing: GrmMissingCounts | null = request.meanImpute || counts.samples.numMissing() === 0 ? null
      : talliesOfMissingCalls({ missing: missingCallsBySnp(missingCalls, input.numSnp), founderCounts: null }, input);
    const threads = request.threads ?? availableParallelism();
    const product = rankUpdateFor(threads);
    const grm: GrmMatrix = { values: grmCrossProducts(input, codeValues, product.update), numSample: input.numSample };
    applyGrmDenominators(grm.values, grm.numSample, input.numSnp, missing);
    const [matrixPath, secondPath, idPath] = outputs;
    const logPath = outputs[outputs.length - 1];
    if (request.rel !== null) {
      staged.push(stageChunks(matrixPath, relMatrixChunks(grm, request.rel.shape, request.rel.format)));
      staged.push(stageFile(secondPath, sampleIdFileText(samples)));
    } else {
      staged.push(stageChunks(matrixPath, grmBinChunks(grm)));
      staged.push(stageChunks(secondPath, grmCountChunks(grm.numSample, input.numSnp, missing)));
      staged.push(stageFile(idPath, request.grmIdHeader ? sampleIdFileText(samples) : grmIdFileText(samples)));
    }
    const log = grmLog(request, { session, sidecar, product: product.description, outputs, perPairCounts: missing !== null });
    staged.push(stageFile(logPath, log));
    return log;
  });
}

/** What the log reports. */
interface GrmLogFacts {
  readonly session: Pick<FrontEndSession, 'started' | 'commands'>;
  readonly sidecar: PreparedSidecar;
  readonly product: string;
  readonly outputs: readonly string[];
  readonly perPairCounts: boolean;
}

/** plink2's log, in its shape: options in effect, what was kept, what was written; plus the snptally commands run. */
function grmLog(request: GrmRequest, facts: GrmLogFacts): string {
  const flag = request.rel !== null ? '--make-rel' : '--make-grm-bin';
  const files = request.rel !== null ? `${facts.outputs[0]} , and IDs to ${facts.outputs[1]}` : `${facts.outputs[0]} , observation counts to ${facts.outputs[1]} , and IDs to ${facts.outputs[2]}`;
  return [
    ...logHeaderLines('PLINK 2 front end', request.optionsInEffect, facts.session),
    `${facts.sidecar.numVector} samples and ${facts.sidecar.numField} autosomal variants remain after filters.`,
    `Constructing GRM: float64 cross products by ${facts.product}; ` +
      (facts.perPairCounts ? 'each pair over the variants both called.' : 'every pair over all variants.'),
    `${flag}: GRM written to ${files} .`,
    '',
    `End time: ${new Date().toString()}`,
    '',
  ].join('\n');
}
