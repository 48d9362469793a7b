// The one owner of a WebGPU device: pipeline cache, buffer creation, uniform packing, submission and
// read-back. Programs are plain data (wgslProgram.ts); nothing else touches the device. Submitting and
// collecting a read-back are separate steps, so that callers can queue the next work before the last
// results have come back.

import { BUFFER_USAGE, MAP_MODE_READ, MAP_MODE_WRITE } from './gpuConstants.js';
import type { GpuCapabilities, OpenedGpu } from './gpuAdapter.js';
import { traced } from '../../../../core/trace.js';
import { DispatchProfile, GPU_PROFILE_REQUESTED, type SubmitTiming } from './dispatchProfile.js';
import { BufferPool } from './bufferPool.js';
import { emitShader, packUniformBlocks, uniformBytes, type WgslProgram } from '../programs/wgslProgram.js';

/** A submit's encoded passes: the profile's timing of them (when profiling) and their uniform buffer (none when empty). */
interface EncodedPasses {
  readonly timing: SubmitTiming | null;
  readonly uniforms: GPUBuffer | null;
}

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
 * Words read back that stay in the mapped staging buffer (no copy into a fresh array: copying 4.3 GB of 2-way records
 * into new arrays took 1.9 s of the main thread, mostly first touches of their pages). Valid until `release()`,
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

/**
 * Bytes of each staging buffer of the upload ring, and buffers in the ring. Pieces are small so that an upload
 * follows a block being built closely (StagedUploadOptions.wordsReady). A piece's buffer is refilled only after
 * its copy has run, and while kernels run that copy waits behind the submits already queued (one queue): a
 * prefetch moves about one ring per queued submit, so the ring holds 128 MiB (a 724 MiB block received during a
 * step took 0.7 s with 64 MiB and was late for the next step).
 */
const STAGING_BYTES = 16 << 20;
const STAGING_RING = 8;

/** How a staged upload reads its words. */
export interface StagedUploadOptions {
  /** The buffer is also read back (COPY_SRC). */
  readonly readBack: boolean;
  /** Present while the words are still being written: resolves once words `[0, wordEnd)` are final. */
  readonly wordsReady?: (wordEnd: number) => Promise<void>;
}

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
  /** GPU time per program, when asked for (SNPTALLY_GPU_PROFILE=1) and the device can time passes. */
  private readonly profile: DispatchProfile | null;
  /** Each submit's uniforms and read-back staging, reused once the submit is done (bufferPool.ts). */
  private readonly uniformPool: BufferPool;
  private readonly readBackPool: BufferPool;

  constructor(opened: OpenedGpu) {
    this.device = opened.device;
    this.capabilities = opened.capabilities;
    this.profile = GPU_PROFILE_REQUESTED && this.device.features.has('timestamp-query') ? new DispatchProfile(this.device) : null;
    // Submits in flight at once are few (a request and the next one's, each read back before the one after).
    this.uniformPool = new BufferPool(this.device, BUFFER_USAGE.UNIFORM | BUFFER_USAGE.COPY_DST, 8);
    this.readBackPool = new BufferPool(this.device, BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST, 8);
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
   * copy, which also takes SharedArrayBuffer views directly — the cheapest way in for large operands.
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
   * A storage buffer holding `words`, filled through a ring of STAGING_RING reusable MAP_WRITE staging buffers of
   * STAGING_BYTES: each piece is mapped, filled and copied on the GPU while the next ones are filled. Uploads
   * take the ring one at a time; other submits may go in between their pieces.
   */
  createStorageBufferStaged(words: Uint32Array, options: StagedUploadOptions): Promise<GPUBuffer> {
    const upload = this.stagingRingTurn.then(() => traced(`upload ${(words.byteLength / 2 ** 20).toFixed(1)} MiB`, () => this.fillThroughStaging(words, options)));
    this.stagingRingTurn = upload.catch(() => undefined);
    return upload;
  }

  /** Settles when the upload holding the staging ring is done. */
  private stagingRingTurn: Promise<unknown> = Promise.resolve();

  private async fillThroughStaging(words: Uint32Array, options: StagedUploadOptions): Promise<GPUBuffer> {
    const buffer = this.createStorageBuffer(Math.max(16, words.byteLength), options);
    this.transferred.uploadedBytes += words.byteLength;
    const pieceWords = STAGING_BYTES / 4;
    for (let first = 0, piece = 0; first < words.length; first += pieceWords, piece++) {
      const count = Math.min(pieceWords, words.length - first);
      try {
        await options.wordsReady?.(first + count);
      } catch (error) {
        // The words will not come (their source failed, or the kernel set closes): the buffer is nobody's
        // (copies of earlier pieces may still be running).
        this.destroyWhenIdle(buffer);
        throw error;
      }
      const staging = await this.stagingBuffer(piece % STAGING_RING);
      new Uint32Array(staging.getMappedRange(0, count * 4)).set(words.subarray(first, first + count));
      staging.unmap();
      const encoder = this.device.createCommandEncoder();
      encoder.copyBufferToBuffer(staging, 0, buffer, first * 4, count * 4);
      this.device.queue.submit([encoder.finish()]);
      // Mapping again waits for this copy to finish: the next use of this staging buffer starts then. The
      // last pieces' mappings are awaited by a later upload, if any, and by destroy().
      this.stagingMaps[piece % STAGING_RING] = this.mapInFlight(staging.mapAsync(MAP_MODE_WRITE));
    }
    return buffer;
  }

  /** A storage buffer holding `words`, filled by queue.writeBuffer in pieces (non-shared copies of SharedArrayBuffer pieces). */
  createStorageBufferByWrites(words: Uint32Array, options: { readonly readBack: boolean }): GPUBuffer {
    const buffer = this.createStorageBuffer(Math.max(16, words.byteLength), options);
    this.upload(buffer, words);
    return buffer;
  }

  private readonly stagingBuffers: GPUBuffer[] = [];
  private readonly stagingMaps: Promise<void>[] = [];
  /** Mappings that nobody may await (see mapInFlight). */
  private readonly mapsInFlight = new Set<Promise<void>>();

  /**
   * Keeps `mapping` until it settles, so that destroy() waits for it: a thread that ends (an in-process rank unwinding
   * after another failed) with a mapping of Dawn's unsettled aborts the process. Its failure does not count as unhandled.
   */
  private mapInFlight(mapping: Promise<void>): Promise<void> {
    this.mapsInFlight.add(mapping);
    const forget = (): void => {
      this.mapsInFlight.delete(mapping);
    };
    mapping.then(forget, forget);
    return mapping;
  }

  /** Staging buffer `idx` of the upload ring, mapped for writing. */
  private async stagingBuffer(idx: number): Promise<GPUBuffer> {
    if (this.stagingBuffers[idx] === undefined) {
      this.stagingBuffers[idx] = this.device.createBuffer({ size: STAGING_BYTES, usage: BUFFER_USAGE.MAP_WRITE | BUFFER_USAGE.COPY_SRC, mappedAtCreation: true });
      return this.stagingBuffers[idx];
    }
    await this.stagingMaps[idx];
    return this.stagingBuffers[idx];
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

  /** Records one dispatch into `pass`, its uniforms bound at `uniforms` (a block of the submit's uniform buffer). */
  private encodeDispatch(pass: GPUComputePassEncoder, dispatch: Dispatch, pipeline: GPUComputePipeline, uniforms: GPUBufferBinding): void {
    const entries: GPUBindGroupEntry[] = dispatch.storage.map((bound, idx) => ({
      binding: idx, resource: 'offset' in bound ? { buffer: bound.buffer, offset: bound.offset, size: bound.size } : { buffer: bound },
    }));
    entries.push({ binding: dispatch.storage.length, resource: uniforms });
    const bindGroup = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(dispatch.workgroups[0], dispatch.workgroups[1]);
  }

  /**
   * Records `dispatches` in order into `encoder`: one compute pass for all, or, when profiling, one pass each with
   * its timestamps (then the returned timing's afterSubmit must be called once the encoder is submitted). All their
   * uniforms go into one buffer of the uniform pool, uploaded once (not a buffer and an upload per dispatch); the
   * caller gives it back (releaseUniforms) once the submit is done, or now if encoding throws.
   */
  private async encodePasses(encoder: GPUCommandEncoder, allDispatches: readonly Dispatch[]): Promise<EncodedPasses> {
    // A grid with no workgroups (no fields on this rank, say) runs nothing, and Dawn warns on stdout of each.
    const dispatches = allDispatches.filter((d) => d.workgroups[0] > 0 && d.workgroups[1] > 0);
    if (dispatches.length === 0) return { timing: null, uniforms: null };
    const pipelines = await Promise.all(dispatches.map((d) => this.pipelineFor(d.program)));
    const { bytes, offsets } = packUniformBlocks(
      dispatches.map((d) => ({ program: d.program, values: d.uniforms })), this.capabilities.minUniformBufferOffsetAlignment);
    const uniforms = this.uniformPool.take(bytes.byteLength);
    this.device.queue.writeBuffer(uniforms, 0, bytes);
    const encode = (pass: GPUComputePassEncoder, d: Dispatch, i: number): void => this.encodeDispatch(pass, d, pipelines[i],
      { buffer: uniforms, offset: offsets[i], size: uniformBytes(d.program) });
    const timing = this.profile?.timeSubmit(dispatches.map((d) => d.program.cacheKey)) ?? null;
    try {
      if (timing === null) {
        const pass = encoder.beginComputePass();
        dispatches.forEach((d, i) => encode(pass, d, i));
        pass.end();
      } else {
        dispatches.forEach((d, i) => {
          const pass = encoder.beginComputePass({ timestampWrites: timing.passTimestamps(i) });
          encode(pass, d, i);
          pass.end();
        });
        timing.resolve(encoder);
      }
    } catch (e) {
      timing?.discard();
      this.uniformPool.give(uniforms);
      throw e;
    }
    return { timing, uniforms };
  }

  /** Gives a submit's uniform buffer back to the pool (after the GPU ran the submit). */
  private releaseUniforms(encoded: EncodedPasses): void {
    if (encoded.uniforms !== null) this.uniformPool.give(encoded.uniforms);
  }

  /**
   * Encodes dispatches (one pass) and submits them without waiting for the GPU; `done` settles when the GPU has run
   * them (their uniforms then go back to the pool). Device errors surface at the next check (throwIfFailed).
   */
  async submitDispatches(dispatches: readonly Dispatch[]): Promise<{ readonly done: Promise<void> }> {
    const encoder = this.device.createCommandEncoder();
    const encoded = await this.encodePasses(encoder, dispatches);
    this.device.queue.submit([encoder.finish()]);
    encoded.timing?.afterSubmit();
    const release = (): void => this.releaseUniforms(encoded);
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
    const encoded = await this.encodePasses(encoder, dispatches);
    const staging = this.readBackPool.take(stagingBytes);
    reads.forEach((read, idx) => encoder.copyBufferToBuffer(read.buffer, 0, staging, offsets[idx], alignTo4(read.numBytes)));
    this.device.queue.submit([encoder.finish()]);
    encoded.timing?.afterSubmit();
    this.transferred.readBackBytes += totalBytes;
    // collect() awaits the mapping (a failed request may never collect it).
    const mapped = this.mapInFlight(staging.mapAsync(MAP_MODE_READ, 0, stagingBytes));
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
          this.releaseUniforms(encoded);
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

  /** Frees the device (after writing the GPU profile, when one was taken, and once no mapping is pending). */
  async destroy(): Promise<void> {
    const position = this.capabilities.position;
    await this.profile?.report(position === null ? '' : `gpu ${position.index} `);
    await Promise.allSettled([...this.mapsInFlight]);
    for (const b of this.stagingBuffers) b.destroy();
    this.uniformPool.destroy();
    this.readBackPool.destroy();
    this.pipelines.clear();
    this.device.destroy();
  }
}

function alignTo4(numBytes: number): number {
  return Math.max(4, Math.ceil(numBytes / 4) * 4);
}
