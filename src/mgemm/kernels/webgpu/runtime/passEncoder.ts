// Encoding of one submit's dispatches for the runner (webgpuRunner.ts): bind groups, pipelines and grids recorded
// in order into compute passes, all the submit's uniforms packed into one buffer of a pool (bufferPool.ts), and,
// when a GPU profile is asked for (SNPTALLY_GPU_PROFILE=1, dispatchProfile.ts), one pass per dispatch with its timestamps.

import { BUFFER_USAGE } from './gpuConstants.js';
import { BufferPool } from './bufferPool.js';
import { DispatchProfile, GPU_PROFILE_REQUESTED, type SubmitTiming } from './dispatchProfile.js';
import type { Dispatch } from './dispatch.js';
import { packUniformBlocks, uniformBytes } from '../programs/wgslProgram.js';
import type { WgslProgram } from '../programs/wgslProgram.js';

/** A submit's encoded passes: the profile's timing of them (when profiling) and their uniform buffer (none when empty). */
export interface EncodedPasses {
  readonly timing: SubmitTiming | null;
  readonly uniforms: GPUBuffer | null;
}

/** Encodes the runner's submits: passes, bind groups and pooled uniforms (and the GPU profile, when asked for). */
export class PassEncoder {
  /** GPU time per program, when asked for and the device can time passes. */
  private readonly profile: DispatchProfile | null;
  /** Each submit's uniforms, reused once the submit is done. */
  private readonly uniformPool: BufferPool;

  /** `pipelineFor` gives a program's compiled pipeline (the runner's cache). */
  constructor(
    private readonly device: GPUDevice, private readonly uniformAlignment: number,
    private readonly pipelineFor: (program: WgslProgram) => Promise<GPUComputePipeline>,
  ) {
    this.profile = GPU_PROFILE_REQUESTED && device.features.has('timestamp-query') ? new DispatchProfile(device) : null;
    // Submits in flight at once are few (a request and the next one's, each read back before the one after).
    this.uniformPool = new BufferPool(device, BUFFER_USAGE.UNIFORM | BUFFER_USAGE.COPY_DST, 8);
  }

  /**
   * Records `dispatches` in order into `encoder`: one compute pass for all, or, when profiling, one pass each with
   * its timestamps (then the returned timing's afterSubmit must be called once the encoder is submitted). All their
   * uniforms go into one buffer of the uniform pool, uploaded once (not a buffer and an upload per dispatch); the
   * caller gives it back (release) once the submit is done, or now if encoding throws.
   */
  async encode(encoder: GPUCommandEncoder, allDispatches: readonly Dispatch[]): Promise<EncodedPasses> {
    // A grid with no workgroups (no fields on this rank, say) runs nothing, and Dawn warns on stdout of each.
    const dispatches = allDispatches.filter((d) => d.workgroups[0] > 0 && d.workgroups[1] > 0);
    if (dispatches.length === 0) return { timing: null, uniforms: null };
    const pipelines = await Promise.all(dispatches.map((d) => this.pipelineFor(d.program)));
    const { bytes, offsets } = packUniformBlocks(dispatches.map((d) => ({ program: d.program, values: d.uniforms })), this.uniformAlignment);
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
  release(encoded: EncodedPasses): void {
    if (encoded.uniforms !== null) this.uniformPool.give(encoded.uniforms);
  }

  /** Writes the GPU profile to stderr, when one was taken (`prefix` names the GPU). */
  async reportProfile(prefix: string): Promise<void> {
    await this.profile?.report(prefix);
  }

  destroy(): void {
    this.uniformPool.destroy();
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
}
