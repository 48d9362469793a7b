// What work handed to the runner (webgpuRunner.ts) is made of: a dispatch (a program, its bound buffers or buffer
// ranges, its uniform values and its grid), reads of result buffers, and pending results that a caller collects
// after it has queued more work. Also the transfer statistics the runner counts. webgpuRunner.ts re-exports all
// of it, so kernel code imports the runtime from one place.

import type { WgslProgram } from '../programs/wgslProgram.js';

/**
 * Part of a buffer bound as one storage binding: `offset` a multiple of the device's
 * minStorageBufferOffsetAlignment, `size` a multiple of 4.
 */
export interface BufferRange {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly size: number;
}

/** One dispatch: a program, its storage buffers (whole, or ranges) in binding order, its uniform values and its grid. */
export interface Dispatch {
  readonly program: WgslProgram;
  readonly storage: readonly (GPUBuffer | BufferRange)[];
  readonly uniforms: Readonly<Record<string, number>>;
  readonly workgroups: readonly [x: number, y: number];
}

/**
 * `count` workgroups of a 1-D grid folded into x × y, at most `maxPerDimension` in x (the program numbers them
 * y·x + x and skips those past its work); x is at least 1, so no work is [1, 0], a dispatch the runner leaves out.
 */
export function foldWorkgroups(count: number, maxPerDimension: number): readonly [x: number, y: number] {
  const x = Math.max(1, Math.min(count, maxPerDimension));
  return [x, Math.ceil(count / x)];
}

/** The first `numBytes` of a buffer, to be copied back to the host. */
export interface BufferRead {
  readonly buffer: GPUBuffer;
  readonly numBytes: number;
}

/**
 * Bytes moved between host and device since the runner opened, and the most submits whose read-back was
 * pending at one time (tests check what a path transfers, and that successive requests overlap).
 */
export interface TransferStatistics {
  uploadedBytes: number;
  readBackBytes: number;
  peakPendingReadBacks: number;
}

/**
 * Words read back that stay in the mapped staging buffer (no copy into a fresh array: 2-way records come back by the
 * gigabyte, and a fresh array faults on the first touch of each page, on the main thread). Valid until `release()`,
 * which unmaps the buffer (the words then read as empty) and gives it back to the pool; release once the words are used.
 */
export interface MappedWords {
  readonly words: Uint32Array;
  release(): void;
}

/** Work on its way: `collect()` (called once) waits for it and gives its result. */
export interface Pending<R> {
  collect(): Promise<R>;
}

/** A pending result that is already known (a request with nothing to submit). */
export function settled<R>(result: R): Pending<R> {
  return { collect: () => Promise.resolve(result) };
}

/** Bytes rounded up to a multiple of 4, at least 4 (buffer sizes and copy lengths). */
export function alignTo4(numBytes: number): number {
  return Math.max(4, Math.ceil(numBytes / 4) * 4);
}
