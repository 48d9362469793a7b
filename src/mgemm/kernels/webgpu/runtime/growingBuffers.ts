// Named storage buffers that grow on demand: a request asks for at least so many bytes and gets the buffer of that
// name, replaced by a larger one (a power of two) when too small. The old one is freed once submitted work no longer reads it.

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
    // A power of two (within one binding): sizes that creep up request by request (3-way stacks of later j-slices
    // are taller) then make a few buffers, not one each: creating a large buffer is slow.
    const size = Math.min(2 ** Math.ceil(Math.log2(Math.max(16, numBytes))), Math.max(numBytes, this.runner.capabilities.maxStorageBufferBindingSize));
    const buffer = this.runner.createStorageBuffer(size, { readBack: true });
    this.buffers.set(name, buffer);
    return buffer;
  }

  destroy(): void {
    for (const b of this.buffers.values()) b.destroy();
    this.buffers.clear();
  }
}
