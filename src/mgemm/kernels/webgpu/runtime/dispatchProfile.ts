// GPU time per program from timestamp queries (SNPTALLY_GPU_PROFILE=1, where the device has `timestamp-query`):
// Nsight Compute does not profile Vulkan kernels, so this is how a run tells its GEMMs from its finalize,
// expansions and sums. Each dispatch then gets its own compute pass with timestamps at its start and end; the
// totals per program (cache key) go to stderr when the device closes. Passes add no barriers a dispatch after a
// dependent one does not already get, but the profile of a run is still not its timing: compare runs without it.
/// <reference types="@webgpu/types" />

import { BUFFER_USAGE, MAP_MODE_READ } from './gpuConstants.js';

/** Whether runs ask for GPU timestamps (the device must also list `timestamp-query`). */
export const GPU_PROFILE_REQUESTED = process.env.SNPTALLY_GPU_PROFILE === '1';

/** Dispatches timed by one query set (two timestamps each; WebGPU allows 4096 queries per set). */
const DISPATCHES_PER_QUERY_SET = 2048;

/** The timestamps of one submit's dispatches, resolved into a buffer the host reads once the submit has run. */
export interface SubmitTiming {
  /** Timestamp writes of dispatch `i` of the submit, for its compute pass. */
  passTimestamps(i: number): GPUComputePassTimestampWrites;
  /** Records the copy of the timestamps to the host; call after the last pass, before finishing the encoder. */
  resolve(encoder: GPUCommandEncoder): void;
  /** Call after the submit: reads the timestamps when they are there and adds them to the profile. */
  afterSubmit(): void;
  /** Frees the query sets and buffers of a submit that will not happen (encoding failed). */
  discard(): void;
}

export class DispatchProfile {
  private readonly nanoseconds = new Map<string, number>();
  private readonly dispatches = new Map<string, number>();
  private readonly reading = new Set<Promise<void>>();

  constructor(private readonly device: GPUDevice) {}

  /** Timing of a submit whose dispatches run the programs `keys`, in order. */
  timeSubmit(keys: readonly string[]): SubmitTiming {
    const numSets = Math.ceil(keys.length / DISPATCHES_PER_QUERY_SET);
    const sets = Array.from({ length: numSets }, (_, s) => this.device.createQuerySet({
      type: 'timestamp', count: 2 * Math.min(DISPATCHES_PER_QUERY_SET, keys.length - s * DISPATCHES_PER_QUERY_SET),
    }));
    const bytes = 16 * keys.length;
    const resolved = this.device.createBuffer({ size: Math.max(16, bytes), usage: BUFFER_USAGE.QUERY_RESOLVE | BUFFER_USAGE.COPY_SRC });
    const readable = this.device.createBuffer({ size: Math.max(16, bytes), usage: BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST });
    const free = (): void => {
      for (const set of sets) set.destroy();
      resolved.destroy();
      readable.destroy();
    };
    return {
      passTimestamps: (i) => {
        const set = sets[Math.floor(i / DISPATCHES_PER_QUERY_SET)];
        const at = 2 * (i % DISPATCHES_PER_QUERY_SET);
        return { querySet: set, beginningOfPassWriteIndex: at, endOfPassWriteIndex: at + 1 };
      },
      resolve: (encoder) => {
        sets.forEach((set, s) => encoder.resolveQuerySet(set, 0, set.count, resolved, s * DISPATCHES_PER_QUERY_SET * 16));
        encoder.copyBufferToBuffer(resolved, 0, readable, 0, Math.max(16, bytes));
      },
      discard: free,
      afterSubmit: () => {
        const read = readable.mapAsync(MAP_MODE_READ).then(() => {
          const stamps = new BigUint64Array(readable.getMappedRange().slice(0));
          keys.forEach((key, i) => {
            const ns = Number(stamps[2 * i + 1] - stamps[2 * i]);
            this.nanoseconds.set(key, (this.nanoseconds.get(key) ?? 0) + ns);
            this.dispatches.set(key, (this.dispatches.get(key) ?? 0) + 1);
          });
        }, () => undefined).finally(free);
        this.reading.add(read);
        void read.then(() => this.reading.delete(read));
      },
    };
  }

  /** Waits for the timestamps still being read, then writes the totals per program to stderr, largest first. */
  async report(label: string): Promise<void> {
    await Promise.all(this.reading);
    const total = [...this.nanoseconds.values()].reduce((a, b) => a + b, 0);
    const lines = [...this.nanoseconds.entries()].sort((a, b) => b[1] - a[1]).map(([key, ns]) =>
      `[gpu-profile] ${label}${(ns / 1e6).toFixed(1).padStart(9)} ms ${(100 * ns / Math.max(1, total)).toFixed(1).padStart(5)} % ${String(this.dispatches.get(key)).padStart(7)} dispatches  ${key}`);
    lines.push(`[gpu-profile] ${label}${(total / 1e6).toFixed(1).padStart(9)} ms in all`);
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}
