// Buffers of one usage kept for reuse once the GPU is done with them: the read-back staging and the uniforms of
// each submit. `createBuffer` costs the main thread far more than taking a free buffer, and a run has thousands of
// dispatches and submits.

/** Smallest size a pooled buffer is given: pooled sizes are powers of two from here, so that they are reused. */
const MIN_POOLED_BYTES = 4096;

export class BufferPool {
  private readonly free: GPUBuffer[] = [];

  /** Keeps at most `maxKept` free buffers (the rest are destroyed when given back). */
  constructor(private readonly device: GPUDevice, private readonly usage: number, private readonly maxKept: number) {}

  /** A buffer of at least `numBytes` (a power of two), reused when one is free; give it back when the GPU is done. */
  take(numBytes: number): GPUBuffer {
    const size = Math.max(MIN_POOLED_BYTES, 2 ** Math.ceil(Math.log2(Math.max(1, numBytes))));
    const at = this.free.findIndex((b) => b.size === size);
    if (at >= 0) return this.free.splice(at, 1)[0];
    return this.device.createBuffer({ size, usage: this.usage });
  }

  /** Returns a buffer no submitted work uses any more (unmapped). */
  give(buffer: GPUBuffer): void {
    if (this.free.length < this.maxKept) this.free.push(buffer);
    else buffer.destroy();
  }

  destroy(): void {
    for (const b of this.free.splice(0)) b.destroy();
  }
}
