// Named storage buffers that grow on demand: a request asks for at least so many bytes and gets the buffer of that
// name, replaced by a larger one when too small. The old one is freed once submitted work no longer reads it.

import type { WebgpuRunner } from './webgpuRunner.js';

export class GrowingBuffers<Name extends string> {
  private readonly buffers = new Map<Name, GPUBuffer>();

  constructor(private readonly runner: WebgpuRunner) {}

  /** The buffer `name` of at least `numBytes` (readable back), grown (and replaced) when too small. */
  get(name: Name, numBytes: number): GPUBuffer {
    const existing = this.buffers.get(name);
    if (existing !== undefined && existing.size >= numBytes) return existing;
    // Submitted work may still use it; work submitted from now on uses the new one.
    if (existing !== undefined) this.runner.destroyWhenIdle(existing);
    const buffer = this.runner.createStorageBuffer(Math.max(16, numBytes), { readBack: true });
    this.buffers.set(name, buffer);
    return buffer;
  }

  destroy(): void {
    for (const b of this.buffers.values()) b.destroy();
    this.buffers.clear();
  }
}
