// What `run --input X` reads: a prepared file (sizes from its sidecar), a raw packed file, or a PLINK
// fileset / VCF prepared on the fly into a temporary packed file — or into shared memory where its SNPs are counted
// beforehand and fit (RunInputOptions.inMemoryMaxBytes; a .bed's whole records are converted in bulk), or, with
// `--individuals`, transposed into memory (io/sampleRowsInMemory.ts), which the run reads while it is written (engine
// source `memory`).
//
// Why a packed layout rather than reading .bed/VCF inside the ranks: ranks read their slabs by offset arithmetic from
// one packed layout (src/io/packedVectorFile.ts); a VCF is text and cannot be addressed that way, and one streaming
// conversion (disk speed) is small next to the O(n²·m) run. So every input reaches the engine as the same packed
// vectors, in a file or in memory, and the engine stays format-agnostic.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { ProblemSize } from '../core/types.js';
import {
  checkPreparedFile, genotypeInputKind, plinkPathsOf, prepareBedRecordsInMemory, prepareGenotypes, preparedBytesOf, prepareGenotypesInMemory, readSidecar, selectsEverything, sidecarPathOf, startPreparedFileCheck, startSampleRowsInMemory,
  type BadSitePolicy, type ChunkWriterPoolStart, type GenotypeSelection, type PreparedSidecar, type SampleRowsInMemory, type SampleRowsResult,
} from '../io/index.js';
import type { JobSpec } from './engineApi.js';
import { openSelectedGenotypes, prepareGenotypeFile } from './genotypePreparation.js';
import { cleanUpOnInterrupt, forgetScratchDirectory } from './interruptCleanup.js';

/** The input of a run, resolved to the packed file the engine reads. */
export interface RunInput {
  readonly kind: 'prepared' | 'packed' | 'bed' | 'vcf';
  /** The path the user gave. */
  readonly givenPath: string;
  /** The packed file the engine reads (a temporary one for bed/vcf). */
  readonly packedPath: string;
  /** Sizes from the sidecar; null for a raw packed file (then --vectors/--fields give them). */
  readonly size: ProblemSize | null;
  readonly sidecar: PreparedSidecar | null;
  /** The sidecar file when it outlives the run (prepared inputs); null otherwise. */
  readonly sidecarPath: string | null;
  /** Every file of the user's the run reads (no output may be one of them). */
  readonly readPaths: readonly string[];
  /**
   * Settles once the input is known good: at once, or for a prepared file checked in the background
   * (`RunInputOptions.hashInBackground`) when its SHA-256 matches; await it before committing anything of the run.
   */
  readonly checked: Promise<void>;
  /** A fileset or VCF transposed into memory (`individuals`); null otherwise (then packedPath is the file read). */
  readonly inMemory: InMemoryInput | null;
  /**
   * A fileset prepared into shared memory (RunInputOptions.inMemoryMaxBytes): its packed vectors, final (then
   * packedPath names the input, no packed file); null: packedPath is the packed file.
   */
  readonly packedInMemory: Uint8Array | null;
  /** Removes temporary files (and ends a background check or a transposition). */
  dispose(): void;
}

/** An input whose samples are rows in memory, being written: the engine's source, and what they turn out to be. */
export interface InMemoryInput {
  readonly source: Extract<JobSpec['source'], { readonly kind: 'memory' }>;
  readonly rows: SampleRowsInMemory;
  /** The sidecar and the missing calls, once `RunInput.checked` has resolved. @throws Error before. */
  result(): SampleRowsResult;
}

/** Options of {@link resolveRunInput}. */
export interface RunInputOptions {
  readonly onBadSite: BadSitePolicy;
  /** False under an MPI launcher: every rank would convert the file on its own. */
  readonly allowConversion: boolean;
  /** PLINK's selection flags; they apply while a fileset or VCF is converted. */
  readonly selection: GenotypeSelection;
  /**
   * Whether SIGINT/SIGTERM/SIGHUP remove the converted input (interruptCleanup.ts); default true. The JavaScript API
   * says false: a library must not take over its host process's signals.
   */
  readonly removeOnInterrupt?: boolean;
  /** Order samples [controls | cases] while a fileset or VCF is converted (genotypePreparation.ts); absent: source order. */
  readonly caseControl?: { readonly pheno: string | null; readonly phenoName: string | null } | null;
  /** Hash a prepared file on a worker thread while the run starts (`RunInput.checked`); absent or false: before returning. */
  readonly hashInBackground?: boolean;
  /**
   * `samples`: vectors are the samples of a fileset or VCF (`run --individuals`), transposed into memory on worker
   * threads while the run starts; absent or `snps`: SNPs.
   */
  readonly vectors?: 'snps' | 'samples';
  /** Keep only variants on chromosomes 1–22 of a fileset or VCF (PLINK's --autosome), after the selection. */
  readonly autosomesOnly?: boolean;
  /**
   * With `vectors: 'samples'`: the run's GPU transposes whole .bed records itself (engine/blocks/codeRowPlanes.ts), so
   * the rows in memory are transposed in the background, for the missing calls and the hash.
   */
  readonly gpuTransposesRecords?: boolean;
  /** With `vectors: 'samples'`: transposition workers started ahead (startTransposeWorkersAhead), used or cancelled. */
  readonly transposeWorkers?: ChunkWriterPoolStart | null;
  /**
   * A fileset or VCF whose SNPs are counted beforehand (a .bed) and whose packed vectors take at most this many bytes
   * is prepared into shared memory (RunInput.packedInMemory) rather than a temporary file; absent: always a file.
   */
  readonly inMemoryMaxBytes?: number;
}

const CHECKED: Promise<void> = Promise.resolve();

/**
 * Resolves `--input`. A prepared file is recognised by its sidecar `<file>.json` and checked against it
 * (size and SHA-256); a .bed, fileset prefix or VCF is converted into a temporary directory (under
 * $TMPDIR) that `dispose` removes.
 */
export async function resolveRunInput(givenPath: string, options: RunInputOptions): Promise<RunInput> {
  const sidecarPath = sidecarPathOf(givenPath);
  const kind = genotypeInputKind(givenPath);
  if (!selectsEverything(options.selection) && (kind === null || existsSync(sidecarPath))) {
    throw new UserError(
      `--input ${givenPath}: --chr, --extract, --keep, --maf and the other selection options apply to a PLINK fileset ` +
      'or VCF (give them to `snptally prepare` to make a prepared file of the selection)');
  }
  const individuals = options.vectors === 'samples';
  if ((individuals || options.autosomesOnly === true) && (kind === null || existsSync(sidecarPath))) {
    throw new UserError(`--input ${givenPath}: --individuals and --autosome apply to a PLINK fileset or VCF (a prepared file keeps the layout it was made with)`);
  }
  if (existsSync(sidecarPath)) {
    const sidecar = readSidecar(sidecarPath);
    const base = {
      kind: 'prepared', givenPath, packedPath: givenPath, size: sizeOf(sidecar), sidecar, sidecarPath, readPaths: [givenPath, sidecarPath], inMemory: null,
      packedInMemory: null,
    } as const;
    if (options.hashInBackground === true) {
      const check = startPreparedFileCheck(givenPath, sidecar);
      return { ...base, checked: check.checked, dispose: () => void check.stop() };
    }
    checkPreparedFile(givenPath, sidecar);
    return { ...base, checked: CHECKED, dispose: () => {} };
  }
  if (kind === null) {
    if (!existsSync(givenPath)) throw new UserError(`--input ${givenPath} does not exist (nor ${givenPath}.bed)`);
    return {
      kind: 'packed', givenPath, packedPath: givenPath, size: null, sidecar: null, sidecarPath: null,
      readPaths: [givenPath], checked: CHECKED, inMemory: null, packedInMemory: null, dispose: () => {},
    };
  }
  if (!options.allowConversion) {
    // Under MPI every rank would convert the file on its own: prepare it once instead.
    throw new UserError(
      `${givenPath}: a ${kind === 'bed' ? 'PLINK fileset' : 'VCF'} is not read directly under an MPI launcher; ` +
      `run \`snptally prepare ${givenPath}${(options.caseControl ?? null) === null ? '' : ' --case-control'} --out FILE\` once and give --input FILE`);
  }
  const plinkPaths = kind === 'bed' ? plinkPathsOf(givenPath) : null;
  const readPaths = plinkPaths === null ? [givenPath] : [plinkPaths.bed, plinkPaths.bim, plinkPaths.fam];
  if (individuals) return transposedInMemory({ kind, givenPath, readPaths }, options);
  const preparationOptions = {
    onBadSite: options.onBadSite, selection: options.selection, caseControl: options.caseControl ?? null, autosomesOnly: options.autosomesOnly,
  };
  const opened = options.inMemoryMaxBytes === undefined ? null : await openSelectedGenotypes(givenPath, preparationOptions);
  const bytes = opened === null ? null : preparedBytesOf(opened.source);
  if (opened !== null && bytes !== null && bytes <= (options.inMemoryMaxBytes ?? 0)) {
    const prepared = prepareBedRecordsInMemory(opened.source, opened.records) ?? await prepareGenotypesInMemory(opened.source, opened.records);
    return {
      kind, givenPath, packedPath: givenPath, size: sizeOf(prepared.sidecar), sidecar: prepared.sidecar, sidecarPath: null, readPaths,
      checked: CHECKED, inMemory: null, packedInMemory: prepared.packed, dispose: () => {},
    };
  }
  const directory = mkdtempSync(join(tmpdir(), 'snptally-input-'));
  if (options.removeOnInterrupt !== false) cleanUpOnInterrupt({ scratchDirectory: directory });
  const dispose = (): void => {
    rmSync(directory, { recursive: true, force: true });
    forgetScratchDirectory(directory);
  };
  try {
    const packedPath = join(directory, 'input.packed');
    // A source opened for memory but too large for it is read from where it stands (nothing of it read yet).
    const sidecar = opened === null
      ? await prepareGenotypeFile(givenPath, packedPath, { ...preparationOptions, permuteSeed: null })
      : await prepareGenotypes(opened.source, packedPath, { ...opened.records, permuteSeed: null });
    return {
      kind, givenPath, packedPath, size: sizeOf(sidecar), sidecar, sidecarPath: null, readPaths, checked: CHECKED, inMemory: null, packedInMemory: null, dispose,
    };
  } catch (error) {
    dispose();
    throw error;
  }
}

/**
 * A fileset or VCF whose samples are transposed into memory: returns once their sizes are known, the rows still being
 * written (the run waits for them where it builds its blocks; `checked` settles once they are final and described).
 */
async function transposedInMemory(
  input: { readonly kind: 'bed' | 'vcf'; readonly givenPath: string; readonly readPaths: readonly string[] },
  options: RunInputOptions,
): Promise<RunInput> {
  const opened = await openSelectedGenotypes(input.givenPath, {
    onBadSite: options.onBadSite, selection: options.selection, autosomesOnly: options.autosomesOnly, caseControl: null,
  });
  const rows = await startSampleRowsInMemory(opened.source, {
    skippedSites: opened.records.skippedSites, selection: opened.records.selection, inBackground: options.gpuTransposesRecords === true,
    startedWorkers: options.transposeWorkers ?? null,
  });
  let result: SampleRowsResult | null = null;
  const checked = rows.done.then((done) => {
    result = done;
  });
  checked.catch(() => undefined);
  return {
    ...input, packedPath: input.givenPath, size: { numVector: rows.numSample, numField: rows.numSnp }, sidecar: null, sidecarPath: null, checked,
    packedInMemory: null,
    inMemory: {
      source: { kind: 'memory', packed: rows.rows, state: rows.state, bedRecords: rows.bedRecords },
      rows,
      result: () => {
        if (result === null) throw new Error('the input in memory is not written yet');
        return result;
      },
    },
    dispose: () => rows.stop(),
  };
}

/**
 * Refuses a dense run over data with missing calls: without --sparse the code 10 counts like a het call
 * (SPEC §1), which would silently miscount.
 */
export function checkMissingCallsAllowed(input: RunInput, sparse: boolean): void {
  if (sparse) return;
  // Rows in memory are described once written (the caller awaits `checked` first).
  const sidecar = input.inMemory === null ? input.sidecar : input.inMemory.result().sidecar;
  if (sidecar !== null && sidecar.numMissingCalls > 0) {
    throw new UserError(
      `${input.givenPath} has ${sidecar.numMissingCalls} missing calls: add --sparse so that they are skipped ` +
      '(without it code 10 counts like a heterozygous call)');
  }
}

function sizeOf(sidecar: PreparedSidecar): ProblemSize {
  return { numVector: sidecar.numVector, numField: sidecar.numField };
}
