// The upload ring of the runner (webgpuRunner.ts createStorageBufferStaged, createStorageBufferUnpacked): STAGING_RING
// reusable MAP_WRITE staging buffers of STAGING_BYTES. A large upload is cut into pieces; each piece is mapped, filled
// and copied on the GPU (or placed by the upload's own commands) while the next ones are filled, and may wait for its
// words to be written first (a block still being received).
// Uploads take the ring one at a time; other submits may go in between their pieces.

import { traced } from '../../../../core/trace.js';
import { BUFFER_USAGE, MAP_MODE_WRITE } from './gpuConstants.js';
import type { MappingsInFlight } from './mappingsInFlight.js';

/**
 * Bytes of each staging buffer of the upload ring, and buffers in the ring. Pieces are small so that an upload
 * follows a block being built closely (wordsReady). A piece's buffer is refilled only after its copy has run, and
 * while kernels run that copy waits behind the submits already queued (one queue): a prefetch moves about one ring
 * per queued submit, so the ring holds 128 MiB: enough that a block received during a step is on the GPU before
 * the next step needs it.
 */
const STAGING_BYTES = 16 << 20;
const STAGING_RING = 8;

/** One upload through the ring. */
export interface StagedUpload {
  /** Creates the buffer the words go to (called once the upload has the ring). */
  readonly createTarget: () => GPUBuffer;
  /** Words staged, in pieces of at most `pieceWords` (default and most: a staging buffer's) from word 0. */
  readonly numWords: number;
  readonly pieceWords?: number;
  /** Writes staged words `[first, first + into.length)` into `into`, a staging buffer's mapped memory. */
  readonly fillPiece: (into: Uint32Array, first: number) => void;
  /** Present while the words are still being written: resolves once words `[0, wordEnd)` are final. */
  readonly wordsReady?: (wordEnd: number) => Promise<void>;
  /**
   * Encodes what takes a staged piece into the target and returns what to run once it is submitted; absent: a copy of
   * the piece to the same words of the target.
   */
  readonly placePiece?: (encoder: GPUCommandEncoder, piece: StagedPiece) => Promise<() => void>;
}

/** Staged words `[first, first + count)` of an upload, at the start of `staging`, on their way to `target`. */
export interface StagedPiece {
  readonly staging: GPUBuffer;
  readonly target: GPUBuffer;
  readonly first: number;
  readonly count: number;
}

/** Words of one staging buffer: the most one piece holds. */
export const STAGING_PIECE_WORDS = STAGING_BYTES / 4;

/** The runner's upload ring: reusable staging buffers, one upload at a time. */
export class StagingRing {
  private readonly buffers: GPUBuffer[] = [];
  private readonly maps: Promise<void>[] = [];
  /** Settles when the upload holding the ring is done. */
  private turn: Promise<unknown> = Promise.resolve();

  /** `destroyWhenIdle` frees a target whose words will not come, once copies already queued have run. */
  constructor(
    private readonly device: GPUDevice, private readonly mappings: MappingsInFlight, private readonly destroyWhenIdle: (buffer: GPUBuffer) => void,
  ) {}

  /** The target filled with the upload's words, once the ring has copied its last piece (submitted, maybe not run). */
  upload(upload: StagedUpload): Promise<GPUBuffer> {
    const done = this.turn.then(() => traced(`upload ${(upload.numWords / 2 ** 18).toFixed(1)} MiB`, () => this.fill(upload)));
    this.turn = done.catch(() => undefined);
    return done;
  }

  /** Frees the staging buffers (after the runner has waited for their mappings). */
  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }

  private async fill({ createTarget, numWords, pieceWords, fillPiece, wordsReady, placePiece }: StagedUpload): Promise<GPUBuffer> {
    const target = createTarget();
    const wordsPerPiece = Math.min(pieceWords ?? STAGING_PIECE_WORDS, STAGING_PIECE_WORDS);
    // Words still being written: the ring's first buffers are made while they are.
    if (wordsReady !== undefined) this.makeBuffers(Math.min(STAGING_RING, Math.ceil(numWords / wordsPerPiece)));
    for (let first = 0, piece = 0; first < numWords; first += wordsPerPiece, piece++) {
      const count = Math.min(wordsPerPiece, numWords - first);
      try {
        await wordsReady?.(first + count);
      } catch (error) {
        // The words will not come (their source failed, or the kernel set closes): the buffer is nobody's
        // (copies of earlier pieces may still be running).
        this.destroyWhenIdle(target);
        throw error;
      }
      const staging = await this.stagingBuffer(piece % STAGING_RING);
      fillPiece(new Uint32Array(staging.getMappedRange(0, count * 4)), first);
      staging.unmap();
      const encoder = this.device.createCommandEncoder();
      const afterSubmit = placePiece === undefined ? null : await placePiece(encoder, { staging, target, first, count });
      if (placePiece === undefined) encoder.copyBufferToBuffer(staging, 0, target, first * 4, count * 4);
      this.device.queue.submit([encoder.finish()]);
      afterSubmit?.();
      // Mapping again waits for this copy to finish: the next use of this staging buffer starts then. The
      // last pieces' mappings are awaited by a later upload, if any, and by the runner's destroy().
      this.maps[piece % STAGING_RING] = this.mappings.track(staging.mapAsync(MAP_MODE_WRITE));
    }
    return target;
  }

  /** Makes the ring's first `count` staging buffers that do not exist yet (mapped for writing). */
  private makeBuffers(count: number): void {
    for (let idx = 0; idx < count; idx++) {
      this.buffers[idx] ??= this.device.createBuffer({ size: STAGING_BYTES, usage: BUFFER_USAGE.MAP_WRITE | BUFFER_USAGE.COPY_SRC, mappedAtCreation: true });
    }
  }

  /** Staging buffer `idx` of the ring, mapped for writing. */
  private async stagingBuffer(idx: number): Promise<GPUBuffer> {
    if (this.buffers[idx] === undefined) {
      // Pieces take the ring's buffers in order: the ones before idx exist.
      this.makeBuffers(idx + 1);
      return this.buffers[idx];
    }
    await this.maps[idx];
    return this.buffers[idx];
  }
}
