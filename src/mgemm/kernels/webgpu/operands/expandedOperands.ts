// u8 operands expanded from a whole resident chunk (expandProgram.ts), kept for the requests that read the same
// chunk again: 3-way multiplies every j-slice's pair products by the same z block, which would otherwise be
// expanded anew for each slice (nv − 2 times for one tetrahedron). A sub-block then binds its columns as a range
// of the kept expansion.

import type { PlaneChunk } from './residentPlanes.js';
import type { Dispatch, WebgpuRunner } from '../runtime/webgpuRunner.js';
import type { WgslProgram } from '../programs/wgslProgram.js';

interface Kept {
  readonly buffer: GPUBuffer;
  readonly numBytes: number;
  /** Where it is filed: its chunk's buffer, and its program's cache key with the words it expands. */
  readonly chunkBuffer: GPUBuffer;
  readonly programKey: string;
}

export class ExpandedOperands {
  /** By chunk buffer, then expansion program; a chunk buffer is never refilled, so its expansions stay valid. */
  private readonly byChunk = new WeakMap<GPUBuffer, Map<string, Kept>>();
  /** Every kept expansion, least recently used first. */
  private readonly lru: Kept[] = [];
  private keptBytes = 0;

  private readonly maxBytes: number;
  private readonly maxBufferBytes: number;

  /**
   * Keeps at most `keptBytes` of expansions (the least recently used go first), each of at most `maxBufferBytes`
   * (one storage binding).
   */
  constructor(private readonly runner: WebgpuRunner, limits: { readonly keptBytes: number; readonly maxBufferBytes: number }) {
    this.maxBytes = limits.keptBytes;
    this.maxBufferBytes = limits.maxBufferBytes;
  }

  /**
   * The expansion of `chunk` by `program` of the plane words from `wordFirst`, `numRowsPad` rows of `rowBytes` (rows
   * past the chunk's are zeros);
   * a new one is submitted now, ahead of the request that uses it (the queue runs submits in order). Expansions in
   * `pinned` (the ones the calling request already holds) are never evicted: its dispatches are not submitted yet.
   * Null when this one does not fit the budget beside them.
   */
  async of(
    chunk: PlaneChunk, program: WgslProgram, rowBytes: number, numRowsPad: number, expand: (target: GPUBuffer) => Dispatch,
    pinned: readonly GPUBuffer[], wordFirst = 0,
  ): Promise<GPUBuffer | null> {
    const numBytes = numRowsPad * rowBytes;
    if (numBytes > Math.min(this.maxBytes, this.maxBufferBytes)) return null;
    const programKey = `${program.cacheKey}@${wordFirst}+${rowBytes}`;
    let perProgram = this.byChunk.get(chunk.buffer);
    const found = perProgram?.get(programKey);
    if (found !== undefined) {
      this.lru.splice(this.lru.indexOf(found), 1);
      this.lru.push(found);
      return found.buffer;
    }
    const pinnedBytes = this.lru.reduce((sum, kept) => sum + (pinned.includes(kept.buffer) ? kept.numBytes : 0), 0);
    if (pinnedBytes + numBytes > this.maxBytes) return null;
    while (this.keptBytes + numBytes > this.maxBytes) this.evictOldest(pinned);
    const kept: Kept = {
      buffer: this.runner.createStorageBuffer(numBytes, { readBack: false }), numBytes, chunkBuffer: chunk.buffer, programKey,
    };
    if (perProgram === undefined) {
      perProgram = new Map();
      this.byChunk.set(chunk.buffer, perProgram);
    }
    perProgram.set(programKey, kept);
    this.lru.push(kept);
    this.keptBytes += numBytes;
    await this.runner.submitDispatches([expand(kept.buffer)]);
    return kept.buffer;
  }

  clear(): void {
    while (this.lru.length > 0) this.evictOldest([]);
  }

  /** Evicts the least recently used expansion not in `pinned`. */
  private evictOldest(pinned: readonly GPUBuffer[]): void {
    const at = this.lru.findIndex((kept) => !pinned.includes(kept.buffer));
    if (at < 0) throw new Error('ExpandedOperands: nothing to evict');
    const [oldest] = this.lru.splice(at, 1);
    // Submitted requests may still read it; requests planned from now on do not find it.
    this.byChunk.get(oldest.chunkBuffer)?.delete(oldest.programKey);
    this.runner.destroyWhenIdle(oldest.buffer);
    this.keptBytes -= oldest.numBytes;
  }
}
