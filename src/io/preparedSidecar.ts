// The JSON sidecar of a prepared packed file: sizes, SNP and sample names, vector order, data checksum.
//
// Why JSON rather than msgpack: the sidecar is read once per command and is small next to the packed
// data (tens of bytes per SNP against numSample/4), and JSON lets people and other tools (jq, Python, R)
// read the SNP names and the permutation without a library.
import { openForReading } from './openForReading.js';
import { closeSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { UserError } from '../core/errors.js';
import type { BadSite } from './genotypeSource.js';
import type { SelectionRecord } from './genotypeSelection.js';
import type { CaseControlRecord } from './phenotypes.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import { readBoundedTextFile } from './sideFiles.js';
import { stageFile, writeFileAtomically, type StagedFile } from './stagedFiles.js';
import { systemErrorText } from './systemErrorText.js';

export const SIDECAR_FORMAT = 'snptally-prepared';
export const SIDECAR_VERSION = 1;

/** SNP columns in source-file order (index = SNP index). */
export interface SidecarSnps {
  readonly id: readonly string[];
  readonly chrom: readonly string[];
  readonly pos: readonly number[];
  readonly allele1: readonly string[];
  readonly allele2: readonly string[];
}

/** Everything a prepared packed file does not record itself. */
export interface PreparedSidecar {
  readonly format: typeof SIDECAR_FORMAT;
  readonly version: typeof SIDECAR_VERSION;
  readonly source: { readonly kind: 'bed' | 'vcf'; readonly path: string };
  /** Vectors (SNPs) in the packed file. */
  readonly numVector: number;
  /** Fields (samples) per vector. */
  readonly numField: number;
  readonly packedBytes: number;
  /** SHA-256 (hex) of the packed file's bytes. */
  readonly packedSha256: string;
  /** Calls coded `10` (missing) in the whole file: runs over data with missing calls need --sparse. */
  readonly numMissingCalls: number;
  /** How fields are coded (SPEC §1), for readers of the sidecar. */
  readonly coding: string;
  readonly sampleIds: readonly string[];
  readonly snps: SidecarSnps;
  /** Packed vector p holds SNP `snpOfVector[p]`; null when vectors are in source order. */
  readonly vectorOrder: { readonly seed: number; readonly snpOfVector: readonly number[] } | null;
  /** Sites skipped by --on-bad-site skip: their count and the first few. */
  readonly skippedSites: { readonly count: number; readonly first: readonly BadSite[] };
  /** What --chr, --extract, --keep, --maf, … kept and why the rest went; null (or absent: older files) for none. */
  readonly selection?: SelectionRecord | null;
  /**
   * Samples ordered [controls | cases] by their phenotypes (epistasis): fields [0, numControls) are controls; null (or
   * absent) when samples are in source order.
   */
  readonly caseControl?: CaseControlRecord | null;
  /**
   * What a vector is: a SNP (absent: the usual layout, fields are samples) or a sample (`prepare --individuals`:
   * vectors are the samples of `sampleIds`, fields the SNPs of `snps`, for relatedness between individuals).
   */
  readonly vectors?: 'snps' | 'samples';
  /** The samples' PLINK family and individual IDs (FID null for a VCF), in `sampleIds` order; written by `--individuals`. */
  readonly sampleNames?: readonly { readonly fid: string | null; readonly iid: string }[];
}

/** Whether a prepared file's vectors are samples (`prepare --individuals`) rather than SNPs. */
export function vectorsAreSamples(sidecar: PreparedSidecar): boolean {
  return sidecar.vectors === 'samples';
}

export const FIELD_CODING =
  'SPEC §1: 2 bits per sample, 4 per byte from the least significant bits; copies of allele1: 00 none, 01 one, 11 two; 10 missing';

/** The sidecar of a packed file: `<packed path>.json`. */
export function sidecarPathOf(packedPath: string): string {
  return `${packedPath}.json`;
}

/**
 * Largest sidecar read. It holds about 50 bytes per SNP and 20 per sample (IDs, loci, the permutation), so this
 * covers some 5 million SNPs; its point is that a crafted or wrong file (a huge one, a link to a device) is refused
 * before JSON.parse holds gigabytes.
 */
export const MAX_SIDECAR_BYTES = 256 << 20;

/** Writes JSON under a temporary name in the same directory, then renames it into place. */
export function writeJsonFileAtomically(path: string, value: unknown): void {
  writeFileAtomically(path, `${JSON.stringify(value)}\n`);
}

/** Writes JSON under a temporary name beside `path`, to be renamed with the files it belongs with (stagedFiles.ts). */
export function stageJsonFile(path: string, value: unknown): StagedFile {
  return stageFile(path, `${JSON.stringify(value)}\n`);
}

/** A sidecar this process staged, and the identity of the file written (kept by the rename into place). */
interface StagedSidecar {
  readonly sidecar: PreparedSidecar;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * Sidecars staged by this process, by final path: the PLINK front end reads back the sidecar of the prepare or run it
 * just ran in this process, and parsing megabytes of JSON it already holds would cost tens of milliseconds. A file
 * changed since (another inode, size or time) is read from disk.
 */
const stagedSidecars = new Map<string, StagedSidecar>();

/** Stages a sidecar (stageJsonFile) and remembers it for readSidecar of its final path in this process. */
export function stageSidecarFile(path: string, sidecar: PreparedSidecar): StagedFile {
  const staged = stageJsonFile(path, sidecar);
  const { ino, size, mtimeMs } = statSync(staged.temporaryPath);
  stagedSidecars.set(resolve(path), { sidecar, ino, size, mtimeMs });
  return staged;
}

/** The sidecar this process staged at `path`, if the file there is still the one it wrote; else null. */
function stagedSidecarAt(path: string): PreparedSidecar | null {
  const staged = stagedSidecars.get(resolve(path));
  if (staged === undefined) return null;
  const file = statSync(path, { throwIfNoEntry: false });
  return file !== undefined && file.ino === staged.ino && file.size === staged.size && file.mtimeMs === staged.mtimeMs ? staged.sidecar : null;
}

/**
 * Reads and checks a sidecar: format tag, version, and that sizes and columns agree with each other.
 * @throws UserError naming the file and the first inconsistency.
 */
export function readSidecar(path: string): PreparedSidecar {
  let parsed: unknown = stagedSidecarAt(path);
  if (parsed === null) {
    const text = readBoundedTextFile(path, 'sidecar', MAX_SIDECAR_BYTES);
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UserError(`cannot read sidecar ${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const fail = (what: string): never => { throw new UserError(`sidecar ${path}: ${what}`); };
  if (typeof parsed !== 'object' || parsed === null) return fail('not a JSON object');
  const record = parsed as Record<string, unknown>;
  if (record.format !== SIDECAR_FORMAT) fail(`format is not "${SIDECAR_FORMAT}"`);
  if (record.version !== SIDECAR_VERSION) fail(`version ${String(record.version)} is not ${SIDECAR_VERSION}`);
  const sidecar = parsed as PreparedSidecar;
  for (const name of ['numVector', 'numField', 'packedBytes', 'numMissingCalls'] as const) {
    if (!Number.isSafeInteger(sidecar[name]) || sidecar[name] < 0) fail(`${name} is not a non-negative integer`);
  }
  if (sidecar.packedBytes !== sidecar.numVector * packedBytesPerVector(sidecar.numField)) {
    fail(`packedBytes ${sidecar.packedBytes} does not match ${sidecar.numVector} vectors of ${sidecar.numField} fields`);
  }
  if (sidecar.vectors !== undefined && sidecar.vectors !== 'snps' && sidecar.vectors !== 'samples') fail('vectors is neither "snps" nor "samples"');
  const bySample = vectorsAreSamples(sidecar);
  const [numSampleWanted, numSnpWanted] = bySample ? [sidecar.numVector, sidecar.numField] : [sidecar.numField, sidecar.numVector];
  const sampleAxis = bySample ? 'numVector' : 'numField';
  if (!Array.isArray(sidecar.sampleIds) || sidecar.sampleIds.length !== numSampleWanted) fail(`sampleIds does not have ${sampleAxis} entries`);
  if (sidecar.sampleNames !== undefined && (!Array.isArray(sidecar.sampleNames) || sidecar.sampleNames.length !== numSampleWanted)) {
    fail(`sampleNames does not have ${sampleAxis} entries`);
  }
  const snps = sidecar.snps as SidecarSnps | undefined;
  if (typeof snps !== 'object' || snps === null) return fail('no snps');
  const numSnp = Array.isArray(snps.id) ? snps.id.length : -1;
  for (const column of ['id', 'chrom', 'pos', 'allele1', 'allele2'] as const) {
    if (!Array.isArray(snps[column]) || snps[column].length !== numSnp) fail(`snps.${column} is not a column of ${numSnp} values`);
  }
  if (numSnp !== numSnpWanted) fail(`${numSnp} SNPs but ${bySample ? 'numField' : 'numVector'} is ${numSnpWanted}`);
  if (bySample && sidecar.vectorOrder !== null) fail('vectorOrder is set for a file whose vectors are samples');
  const order = sidecar.vectorOrder;
  if (order !== null) {
    if (typeof order !== 'object' || !Array.isArray(order.snpOfVector) || order.snpOfVector.length !== numSnp) {
      fail('vectorOrder.snpOfVector is not a permutation of the SNPs');
    }
    const seen = new Uint8Array(numSnp);
    for (const snpIdx of order.snpOfVector) {
      if (!Number.isInteger(snpIdx) || snpIdx < 0 || snpIdx >= numSnp || seen[snpIdx] === 1) {
        fail('vectorOrder.snpOfVector is not a permutation of the SNPs');
      }
      seen[snpIdx] = 1;
    }
  }
  return sidecar;
}

/** SHA-256 (hex) of a file, read in chunks. */
export function sha256OfFile(path: string): string {
  const hash = createHash('sha256');
  const chunk = new Uint8Array(4 << 20);
  const fd = openForReading(path);
  try {
    for (let position = 0; ;) {
      const got = readSync(fd, chunk, 0, chunk.length, position);
      if (got === 0) break;
      hash.update(chunk.subarray(0, got));
      position += got;
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * Checks that a packed file is the one its sidecar describes: size, then SHA-256 of its bytes.
 * @throws UserError naming the file and what differs.
 */
export function checkPreparedFile(packedPath: string, sidecar: PreparedSidecar): void {
  checkPreparedFileSize(packedPath, sidecar);
  checkPreparedFileDigest(packedPath, sidecar, sha256OfFile(packedPath));
}

/** The size part of checkPreparedFile. @throws UserError naming the file and both sizes. */
export function checkPreparedFileSize(packedPath: string, sidecar: PreparedSidecar): void {
  let size: number;
  try {
    size = statSync(packedPath).size;
  } catch (error) {
    throw new UserError(`cannot read input file ${packedPath}: ${systemErrorText(error)}`);
  }
  if (size !== sidecar.packedBytes) {
    throw new UserError(
      `input file ${packedPath} has ${size} bytes but its sidecar says ${sidecar.packedBytes} ` +
      `(${sidecar.numVector} vectors × ${sidecar.numField} fields): the files do not belong together`);
  }
}

/** The hash part of checkPreparedFile, from the file's SHA-256 `digest`. @throws UserError naming the file. */
export function checkPreparedFileDigest(packedPath: string, sidecar: PreparedSidecar, digest: string): void {
  if (digest !== sidecar.packedSha256) {
    throw new UserError(
      `input file ${packedPath} does not match the SHA-256 in its sidecar (${digest.slice(0, 12)}… vs ` +
      `${sidecar.packedSha256.slice(0, 12)}…): it changed after prepare`);
  }
}
