// Memory of tallies handed back by the caller (PopcountGemm.recycle: 2-way panels, 3-way calls), reused by later
// requests: they come one after another at about the same size, and fresh memory costs a page fault per 4 KiB, and
// an unmap with a TLB flush on every core of the process when it is collected: often more than the GEMM itself.

/** Buffers kept at most: two panels' term groups (r² sparse has seven), the lookahead's two panels in flight. */
const MAX_KEPT_BUFFERS = 16;

/** Tally arrays of exact lengths over kept buffers at least as large: zeroed one by one, or contiguous unzeroed. */
export class TallyBuffers {
  private readonly kept: ArrayBufferLike[] = [];

  constructor(private readonly shared: boolean) {}

  /** One zeroed array of `length` u32 per entry of `lengths`, on kept buffers where one is large enough. */
  take(lengths: readonly number[]): Uint32Array[] {
    return lengths.map((length) => this.bufferFor(4 * length, { zeroed: true }, length));
  }

  /** `length` u32 on the smallest kept buffer of at least `bytes` (so that large ones stay for large requests), or on a fresh one. */
  private bufferFor(bytes: number, options: { readonly zeroed: boolean }, length: number): Uint32Array {
    let best = -1;
    for (let k = 0; bytes > 0 && k < this.kept.length; k++) {
      const size = this.kept[k].byteLength;
      if (size >= bytes && (best < 0 || size < this.kept[best].byteLength)) best = k;
    }
    if (best < 0) return new Uint32Array(this.shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
    const [buffer] = this.kept.splice(best, 1);
    const array = new Uint32Array(buffer, 0, length);
    if (options.zeroed) array.fill(0);
    return array;
  }

  /**
   * Consecutive arrays of `lengths` u32 on one buffer (a kept one where one is large enough), contents unspecified:
   * for outputs whose every element the kernels write (3-way slices), so that zeroing is not paid for.
   */
  takeContiguous(lengths: readonly number[]): Uint32Array[] {
    const total = lengths.reduce((sum, length) => sum + length, 0);
    const words = this.bufferFor(4 * total, { zeroed: false }, total);
    let offset = 0;
    return lengths.map((length) => {
      const array = words.subarray(offset, offset + length);
      offset += length;
      return array;
    });
  }

  /** Keeps the buffers under `arrays` (whole) for later requests, up to MAX_KEPT_BUFFERS; each buffer once. */
  give(arrays: readonly Uint32Array[]): void {
    for (const array of arrays) {
      const buffer = array.buffer;
      if ((buffer instanceof SharedArrayBuffer) !== this.shared || this.kept.includes(buffer)) continue;
      if (this.kept.length === MAX_KEPT_BUFFERS) this.kept.shift();
      this.kept.push(buffer);
    }
  }
}
