// The one owner of a WebGPU device: pipeline cache, buffer creation, uploads, submission and read-back. Programs
// are plain data (wgslProgram.ts); nothing else touches the device. Submitting and collecting a read-back are
// separate steps, so that callers can queue the next work before the last results have come back. Its helpers, by
// job: passEncoder.ts encodes a submit's dispatches and uniforms, stagingRing.ts uploads through reusable staging
// buffers (uploads.ts: their shapes), mappingsInFlight.ts keeps the mappings destroy() waits for; dispatch.ts defines the work it takes
// (re-exported here).

import { BUFFER_USAGE, MAP_MODE_READ } from './gpuConstants.js';
import type { GpuCapabilities, OpenedGpu } from './gpuAdapter.js';
import { traced } from '../../../../core/trace.js';
import { BufferPool } from './bufferPool.js';
import { alignTo4, type BufferRead, type Dispatch, type MappedWords, type Pending, type TransferStatistics } from './dispatch.js';
import { MappingsInFlight } from './mappingsInFlight.js';
import { PassEncoder } from './passEncoder.js';
import { STAGING_PIECE_WORDS, StagingRing } from './stagingRing.js';
import { unpackedRowsPerPiece, type DispatchedUpload, type StagedUploadOptions, type UnpackedUpload } from './uploads.js';
import { emitShader, type WgslProgram } from '../programs/wgslProgram.js';

export { unpackedRowsPerPiece, type DispatchedUpload, type StagedUploadOptions, type UnpackedUpload } from './uploads.js';
export {
  foldWorkgroups, settled, type BufferRange, type BufferRead, type Dispatch, type MappedWords, type Pending, type TransferStatistics,
} from './dispatch.js';

/** Words copied out of shared memory per upload call (64 MiB). */
const UPLOAD_PIECE_WORDS = 16 << 20;

export class WebgpuRunner {
  readonly device: GPUDevice;
  readonly capabilities: GpuCapabilities;
  /** Compiles by cache key, started or done; a failed one stays (every use gets its error). */
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private readonly errors: string[] = [];
  private lostReason: string | null = null;
  private readonly transferred: TransferStatistics = { uploadedBytes: 0, readBackBytes: 0, peakPendingReadBacks: 0 };
  private numPendingReadBacks = 0;
  /** Encodes each submit's dispatches (uniforms, GPU profile). */
  private readonly passes: PassEncoder;
  /** Each submit's read-back staging, reused once the submit is done (bufferPool.ts). */
  private readonly readBackPool: BufferPool;
  /** Mappings that nobody may await: destroy() waits for them. */
  private readonly mappings = new MappingsInFlight();
  private readonly stagingRing: StagingRing;
  /** Where createStorageBufferUnpacked's pieces are copied for their unpack dispatch (one piece at a time: queue order). */
  private packedPieces: GPUBuffer | null = null;

  constructor(opened: OpenedGpu) {
    this.device = opened.device;
    this.capabilities = opened.capabilities;
    this.passes = new PassEncoder(this.device, this.capabilities.minUniformBufferOffsetAlignment, (program) => this.pipelineFor(program));
    // Submits in flight at once are few (a request and the next one's, each read back before the one after).
    this.readBackPool = new BufferPool(this.device, BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST, 8);
    this.stagingRing = new StagingRing(this.device, this.mappings, (buffer) => this.destroyWhenIdle(buffer));
    this.device.onuncapturederror = (event: GPUUncapturedErrorEvent) => { this.errors.push(event.error.message); };
    void this.device.lost.then((info) => { this.lostReason = info.message || info.reason; });
  }

  /**
   * The compiled pipeline of a program, built once per cache key (a use while it compiles waits for the same
   * compile); WGSL errors reject with their messages.
   */
  pipelineFor(program: WgslProgram): Promise<GPUComputePipeline> {
    let pipeline = this.pipelines.get(program.cacheKey);
    if (pipeline === undefined) {
      pipeline = this.compile(program);
      this.pipelines.set(program.cacheKey, pipeline);
    }
    return pipeline;
  }

  /**
   * Starts compiling `programs` and returns at once (cold GPU drivers take seconds per program). Errors are
   * not lost: the first use of a program (pipelineFor) rejects with its compile's error.
   */
  compileStart(programs: readonly WgslProgram[]): void {
    for (const program of programs) this.pipelineFor(program).catch(() => undefined);
  }

  /** Cache keys of the programs compiled or compiling. */
  get compiledProgramKeys(): string[] {
    return [...this.pipelines.keys()];
  }

  private compile(program: WgslProgram): Promise<GPUComputePipeline> {
    return traced(`compile ${program.cacheKey}`, async () => {
      const module = this.device.createShaderModule({ code: emitShader(program) });
      const info = await module.getCompilationInfo();
      const errors = info.messages.filter((m) => m.type === 'error');
      if (errors.length > 0) {
        throw new Error(`WGSL of ${program.cacheKey} does not compile: ${errors.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join('; ')}`);
      }
      return this.device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    });
  }

  /** A storage buffer readable by kernels, writable from the host (and copyable out when `readBack`). */
  createStorageBuffer(numBytes: number, options: { readonly readBack: boolean }): GPUBuffer {
    const usage = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST | (options.readBack ? BUFFER_USAGE.COPY_SRC : 0);
    return this.device.createBuffer({ size: alignTo4(numBytes), usage });
  }

  /**
   * A storage buffer holding `words` (padded to at least 16 bytes): mapped at creation and filled with one
   * copy, which also takes SharedArrayBuffer views directly. Benchmarks compare it with the staged upload
   * (createStorageBufferStaged), which the kernel set uses: reused staging memory is faster for large operands.
   */
  createStorageBufferFrom(words: Uint32Array, options: { readonly readBack: boolean }): GPUBuffer {
    const usage = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST | (options.readBack ? BUFFER_USAGE.COPY_SRC : 0);
    const buffer = this.device.createBuffer({ size: Math.max(16, alignTo4(words.byteLength)), usage, mappedAtCreation: true });
    new Uint32Array(buffer.getMappedRange()).set(words);
    buffer.unmap();
    this.transferred.uploadedBytes += words.byteLength;
    return buffer;
  }

  /**
   * A storage buffer holding `words`, filled through the runner's ring of reusable staging buffers (stagingRing.ts):
   * each piece is mapped, filled and copied on the GPU while the next ones are filled. Uploads take the ring one at
   * a time; other submits may go in between their pieces.
   */
  createStorageBufferStaged(words: Uint32Array, options: StagedUploadOptions): Promise<GPUBuffer> {
    return this.stagingRing.upload({
      createTarget: () => {
        const buffer = this.createStorageBuffer(Math.max(16, words.byteLength), options);
        this.transferred.uploadedBytes += words.byteLength;
        return buffer;
      },
      numWords: words.length, fillPiece: (into, first) => into.set(words.subarray(first, first + into.length)), wordsReady: options.wordsReady,
    });
  }

  /**
   * A storage buffer whose rows cross through the staging ring packed (upload.packRows: e.g. only the words where planes
   * can have bits), each piece copied to a scratch buffer and written out whole from there by upload.unpack.
   * @throws RangeError when one row does not fit a piece (unpackedRowsPerPiece; callers upload those rows whole).
   */
  createStorageBufferUnpacked(upload: UnpackedUpload): Promise<GPUBuffer> {
    const { packedRowWords, rowWords, rowsReady } = upload;
    const rowsPerPiece = unpackedRowsPerPiece(packedRowWords, rowWords);
    if (rowsPerPiece < 1) throw new RangeError(`a row of ${rowWords} words (${packedRowWords} packed) exceeds a staging piece`);
    return this.stagingRing.upload({
      createTarget: () => {
        const buffer = this.createStorageBuffer(Math.max(16, upload.numRows * rowWords * 4), upload);
        this.transferred.uploadedBytes += upload.numRows * packedRowWords * 4;
        return buffer;
      },
      numWords: upload.numRows * packedRowWords, pieceWords: rowsPerPiece * packedRowWords,
      fillPiece: (into, first) => upload.packRows(into, first / packedRowWords, into.length / packedRowWords),
      wordsReady: rowsReady === undefined ? undefined : (wordEnd) => rowsReady(Math.ceil(wordEnd / packedRowWords)),
      placePiece: (encoder, { staging, target, first, count }) => this.placeThroughScratch(encoder, staging, count,
        (packed) => [upload.unpack(packed, target, first / packedRowWords, count / packedRowWords)]),
    });
  }

  /**
   * Words that cross through the staging ring piece by piece into buffers the caller made (`upload.target` and any
   * others its dispatches write): each piece is copied to a scratch buffer and taken from there by upload.dispatchesOf.
   */
  async uploadThroughDispatches(upload: DispatchedUpload): Promise<void> {
    await this.stagingRing.upload({
      createTarget: () => {
        this.transferred.uploadedBytes += upload.numWords * 4;
        return upload.target;
      },
      numWords: upload.numWords, pieceWords: upload.pieceWords, fillPiece: upload.fillPiece,
      placePiece: (encoder, { staging, first, count }) => this.placeThroughScratch(encoder, staging, count, (packed) => upload.dispatchesOf(packed, first, count)),
    });
  }

  /** Encodes the copy of a staged piece to the scratch buffer and the dispatches that read it there; returns the after-submit step. */
  private async placeThroughScratch(
    encoder: GPUCommandEncoder, staging: GPUBuffer, count: number, dispatchesOf: (packed: GPUBuffer) => Dispatch[],
  ): Promise<() => void> {
    this.packedPieces ??= this.createStorageBuffer(STAGING_PIECE_WORDS * 4, { readBack: false });
    encoder.copyBufferToBuffer(staging, 0, this.packedPieces, 0, count * 4);
    const encoded = await this.passes.encode(encoder, dispatchesOf(this.packedPieces));
    return () => {
      encoded.timing?.afterSubmit();
      const release = (): void => this.passes.release(encoded);
      this.device.queue.onSubmittedWorkDone().then(release, release);
    };
  }

  /** A storage buffer holding `words`, filled by queue.writeBuffer in pieces (non-shared copies of SharedArrayBuffer pieces). */
  createStorageBufferByWrites(words: Uint32Array, options: { readonly readBack: boolean }): GPUBuffer {
    const buffer = this.createStorageBuffer(Math.max(16, words.byteLength), options);
    this.upload(buffer, words);
    return buffer;
  }

  /** Waits for every submitted command. */
  async idle(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
    this.throwIfFailed();
  }

  /**
   * Destroys `buffer` once the GPU has finished all work submitted so far: for buffers replaced or evicted while
   * submitted work may still read them.
   */
  destroyWhenIdle(buffer: GPUBuffer): void {
    const destroy = (): void => buffer.destroy();
    this.device.queue.onSubmittedWorkDone().then(destroy, destroy);
  }

  /** Bytes uploaded and read back so far, and the most read-backs pending at once (a copy). */
  get transfers(): TransferStatistics {
    return { ...this.transferred };
  }

  /** Copies `words` into `buffer` at byte 0 (through the queue; ordered before later submits). */
  upload(buffer: GPUBuffer, words: Uint32Array): void {
    this.transferred.uploadedBytes += words.byteLength;
    // Dawn copies host memory on the call, so the words may change afterwards. It takes no
    // SharedArrayBuffer views: those go through a plain copy, a bounded piece at a time.
    if (!(words.buffer instanceof SharedArrayBuffer)) {
      if (words.length > 0) this.device.queue.writeBuffer(buffer, 0, words);
      return;
    }
    for (let first = 0; first < words.length; first += UPLOAD_PIECE_WORDS) {
      const piece = words.slice(first, Math.min(words.length, first + UPLOAD_PIECE_WORDS));
      this.device.queue.writeBuffer(buffer, first * 4, new Uint32Array(piece));
    }
  }

  /**
   * Encodes dispatches (one pass) and submits them without waiting for the GPU; `done` settles when the GPU has run
   * them (their uniforms then go back to the pool). Device errors surface at the next check (throwIfFailed).
   */
  async submitDispatches(dispatches: readonly Dispatch[]): Promise<{ readonly done: Promise<void> }> {
    const encoder = this.device.createCommandEncoder();
    const encoded = await this.passes.encode(encoder, dispatches);
    this.device.queue.submit([encoder.finish()]);
    encoded.timing?.afterSubmit();
    const release = (): void => this.passes.release(encoded);
    return { done: this.device.queue.onSubmittedWorkDone().then(release, release) };
  }

  /** Runs dispatches in one compute pass and submit, waits for the GPU, then throws any device error. */
  async runDispatches(dispatches: readonly Dispatch[]): Promise<void> {
    const { done } = await this.submitDispatches(dispatches);
    await done;
    this.throwIfFailed();
  }

  /**
   * Runs dispatches (in order, one pass), then copies the first `numBytes` of `output` back to the host. The copy is a
   * plain ArrayBuffer the caller owns.
   */
  async runAndReadBack(dispatches: readonly Dispatch[], output: GPUBuffer, numBytes: number): Promise<Uint32Array> {
    const [words] = await this.runAndReadBackMany(dispatches, [{ buffer: output, numBytes }]);
    return words;
  }

  /** submitWithReadBack, then its collect. */
  async runAndReadBackMany(dispatches: readonly Dispatch[], reads: readonly BufferRead[]): Promise<Uint32Array[]> {
    return (await this.submitWithReadBack(dispatches, reads)).collect();
  }

  /**
   * Encodes dispatches (in order, one pass; none is fine) and copies of the first bytes of each read, submits them
   * as one, and returns without waiting for the GPU. `collect()` waits for the copies and gives the words of each
   * read (plain ArrayBuffers the caller owns), then gives the submit's staging and uniform buffers back to their pools and throws any
   * device error. The buffers read may be written by later submits: the queue runs submits in order, so this
   * submit's copies see its own dispatches' results.
   */
  async submitWithReadBack(dispatches: readonly Dispatch[], reads: readonly BufferRead[]): Promise<Pending<Uint32Array[]>> {
    const offsets: number[] = [];
    let totalBytes = 0;
    for (const read of reads) {
      offsets.push(totalBytes);
      totalBytes += alignTo4(read.numBytes);
    }
    const stagingBytes = Math.max(4, totalBytes);
    const encoder = this.device.createCommandEncoder();
    const encoded = await this.passes.encode(encoder, dispatches);
    const staging = this.readBackPool.take(stagingBytes);
    reads.forEach((read, idx) => encoder.copyBufferToBuffer(read.buffer, 0, staging, offsets[idx], alignTo4(read.numBytes)));
    this.device.queue.submit([encoder.finish()]);
    encoded.timing?.afterSubmit();
    this.transferred.readBackBytes += totalBytes;
    // collect() awaits the mapping (a failed request may never collect it).
    const mapped = this.mappings.track(staging.mapAsync(MAP_MODE_READ, 0, stagingBytes));
    this.numPendingReadBacks++;
    this.transferred.peakPendingReadBacks = Math.max(this.transferred.peakPendingReadBacks, this.numPendingReadBacks);
    let collected = false;
    return {
      collect: async () => {
        if (collected) throw new Error('submitWithReadBack: collect() called twice');
        collected = true;
        try {
          await mapped;
          this.throwIfFailed();
          const all = staging.getMappedRange(0, stagingBytes).slice(0);
          return reads.map((read, idx) => new Uint32Array(all, offsets[idx], alignTo4(read.numBytes) / 4));
        } finally {
          this.numPendingReadBacks--;
          if (staging.mapState === 'mapped') staging.unmap();
          this.readBackPool.give(staging);
          this.passes.release(encoded);
        }
      },
    };
  }

  /** Copies the first bytes of `read.buffer` back (after the work submitted so far) and gives them where they are mapped. */
  async readBackMapped(read: BufferRead): Promise<MappedWords> {
    const numBytes = alignTo4(read.numBytes);
    const staging = this.readBackPool.take(numBytes);
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(read.buffer, 0, staging, 0, numBytes);
    this.device.queue.submit([encoder.finish()]);
    this.transferred.readBackBytes += numBytes;
    this.numPendingReadBacks++;
    this.transferred.peakPendingReadBacks = Math.max(this.transferred.peakPendingReadBacks, this.numPendingReadBacks);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      if (staging.mapState === 'mapped') staging.unmap();
      this.readBackPool.give(staging);
    };
    try {
      await staging.mapAsync(MAP_MODE_READ, 0, numBytes);
      this.throwIfFailed();
      return { words: new Uint32Array(staging.getMappedRange(0, numBytes)), release };
    } catch (e) {
      release();
      throw e;
    } finally {
      this.numPendingReadBacks--;
    }
  }

  /**
   * submitWithReadBack of each item in order (`describe` gives its dispatches and reads), handing each one's
   * words to `use` in order: an item's read-back is collected once the next item is submitted (the GPU runs
   * that one while the host takes the words), the last one's by the returned collect(). At most two items'
   * staging is held at a time.
   */
  async submitEachWithReadBack<T>(
    items: readonly T[],
    describe: (item: T) => { readonly dispatches: readonly Dispatch[]; readonly reads: readonly BufferRead[] },
    use: (item: T, words: Uint32Array[]) => void,
  ): Promise<Pending<void>> {
    let previous: { readonly item: T; readonly pending: Pending<Uint32Array[]> } | null = null;
    try {
      for (const item of items) {
        const { dispatches, reads } = describe(item);
        const pending = await this.submitWithReadBack(dispatches, reads);
        const earlier = previous;
        previous = { item, pending };
        if (earlier !== null) use(earlier.item, await earlier.pending.collect());
      }
    } catch (e) {
      // Free what is still pending; the first error is the one to report.
      await previous?.pending.collect().catch(() => undefined);
      throw e;
    }
    const last = previous;
    return { collect: async () => { if (last !== null) use(last.item, await last.pending.collect()); } };
  }

  /** Throws the first validation / out-of-memory error or device loss seen since the last check. */
  throwIfFailed(): void {
    if (this.lostReason !== null) throw new Error(`WebGPU device lost: ${this.lostReason}`);
    if (this.errors.length > 0) {
      const message = this.errors.splice(0).join('; ');
      throw new Error(`WebGPU error: ${message}`);
    }
  }

  /**
   * Frees the device (after writing the GPU profile, when one was taken, once no mapping is pending and no compile
   * started ahead by compileStart is still running: a rank failing early must not destroy the device under them).
   */
  async destroy(): Promise<void> {
    const position = this.capabilities.position;
    await this.passes.reportProfile(position === null ? '' : `gpu ${position.index} `);
    await this.mappings.allSettled();
    await Promise.allSettled(this.pipelines.values());
    this.stagingRing.destroy();
    this.packedPieces?.destroy();
    this.passes.destroy();
    this.readBackPool.destroy();
    this.pipelines.clear();
    this.device.destroy();
  }
}

