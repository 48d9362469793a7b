// One dense matrix file written by several writers (ranks) at once, each at its elements' positions. It is created at
// its full size (zeros: square0's upper triangle needs no writes) under a temporary name, every writer opens it and
// writes (positioned writes: no shared file offset), and when all are done one of them commits it: renames a binary
// matrix into place, or turns the float64 scratch of a text matrix into PLINK's text and removes the scratch.
import { closeSync, ftruncateSync, openSync, renameSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../core/errors.js';
import { matrixElementBytes, matrixElementCount, type MatrixFormat, type MatrixGeometry } from './matrixLayout.js';
import { writeMatrixText } from './plinkNumberText.js';
import { systemErrorText } from './systemErrorText.js';
import { temporaryPathFor } from './temporaryFiles.js';

/** Shortest text of a value and its separator ("0\t"): a text matrix takes at least this much beyond its scratch. */
const MIN_TEXT_BYTES_PER_VALUE = 2;

/** Where a matrix is written and in which format. */
export interface MatrixFileSpec {
  readonly finalPath: string;
  readonly format: MatrixFormat;
  readonly geometry: MatrixGeometry;
}

/** Bytes the file system must have for a matrix: the binary file, or a text matrix's float64 scratch and its shortest text. */
export function matrixDiskBytes(spec: MatrixFileSpec): number {
  const numElements = matrixElementCount(spec.geometry);
  const binary = numElements * matrixElementBytes(spec.format);
  return spec.format === 'text' ? binary + MIN_TEXT_BYTES_PER_VALUE * numElements : binary;
}

/** Refuses (one line) a matrix that cannot fit the free space of its directory's file system. */
export function checkMatrixDiskSpace(spec: MatrixFileSpec): void {
  const needed = matrixDiskBytes(spec);
  let free: number;
  try {
    const stats = statfsSync(dirname(spec.finalPath));
    free = stats.bavail * stats.bsize;
  } catch (error) {
    throw new UserError(`cannot check the free space for ${spec.finalPath}: ${systemErrorText(error)}`);
  }
  if (needed > free) {
    const gib = (bytes: number): string => (bytes / 2 ** 30).toFixed(2);
    throw new UserError(
      `${spec.finalPath} needs ${gib(needed)} GiB (${spec.geometry.numVector} × ${spec.geometry.numVector} ${spec.geometry.shape}, ` +
      `${spec.format}) but its file system has ${gib(free)} GiB free`);
  }
}

/** A temporary name for `finalPath` that every writer can rebuild from two numbers (`temporaryNameParts`). */
export function matrixTemporaryPath(finalPath: string, parts: readonly [number, number]): string {
  return `${finalPath}.${parts[0]}-${parts[1].toString(16).padStart(8, '0')}.tmp`;
}

/** The two numbers of a fresh temporary name (this process's id and 32 random bits), to share with the other writers. */
export function temporaryNameParts(finalPath: string): [number, number] {
  const made = temporaryPathFor(finalPath);
  const match = /\.(\d+)-([0-9a-f]{8})\.tmp$/.exec(made);
  if (match === null) throw new Error(`unexpected temporary name ${made}`);
  return [Number(match[1]), parseInt(match[2], 16)];
}

/** Creates the temporary file at its full size (zeros). Called by one writer before any opens it. */
export function createMatrixFile(spec: MatrixFileSpec, temporaryPath: string): void {
  const numBytes = matrixElementCount(spec.geometry) * matrixElementBytes(spec.format);
  let fd: number;
  try {
    fd = openSync(temporaryPath, 'wx');
  } catch (error) {
    throw new UserError(`cannot create ${temporaryPath}: ${systemErrorText(error)}`);
  }
  try {
    ftruncateSync(fd, numBytes);
  } catch (error) {
    rmSync(temporaryPath, { force: true });
    throw new UserError(`cannot size ${temporaryPath} to ${numBytes} bytes: ${systemErrorText(error)}`);
  } finally {
    // Writers open it afresh.
    closeSync(fd);
  }
}

/** A writer's handle on the matrix file: positioned writes of element runs. */
export class MatrixFileWriter {
  private fd: number | null;

  private constructor(readonly spec: MatrixFileSpec, readonly temporaryPath: string, fd: number) {
    this.fd = fd;
  }

  /** Opens the file another writer (or this one) created. */
  static open(spec: MatrixFileSpec, temporaryPath: string): MatrixFileWriter {
    try {
      return new MatrixFileWriter(spec, temporaryPath, openSync(temporaryPath, 'r+'));
    } catch (error) {
      throw new UserError(`cannot open ${temporaryPath} (ranks on several hosts need a shared file system for --matrix): ${systemErrorText(error)}`);
    }
  }

  /** Writes `bytes` at byte `position` of the file. */
  write(bytes: Uint8Array, position: number): void {
    if (this.fd === null) throw new Error(`${this.temporaryPath}: write after close`);
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, position + done);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * The complete matrix's bytes under a temporary name (once every writer has closed), for the run to rename with its
 * other files: a binary matrix is its file as written; a text matrix is written from that scratch under a temporary
 * name of its own, and the scratch removed.
 */
export function stageMatrixFile(spec: MatrixFileSpec, temporaryPath: string): string {
  if (spec.format !== 'text') return temporaryPath;
  const textPath = temporaryPathFor(spec.finalPath);
  try {
    writeMatrixText(temporaryPath, textPath, spec.geometry);
  } catch (error) {
    rmSync(textPath, { force: true });
    throw error;
  } finally {
    rmSync(temporaryPath, { force: true });
  }
  return textPath;
}

/** Removes the temporary file (a failed run). */
export function discardMatrixFile(temporaryPath: string): void {
  rmSync(temporaryPath, { force: true });
}
