// The GPU's u32 ALU rate, measured: the ceiling of the min-plus kernels' soft floats and integer sums, which are
// integer shifts, compares, selects and adds (tools/bench-gpu-czekanowski.ts). Each thread runs CHAINS independent
// chains of `x = (x ^ (x >> 3)) + k` (3 u32 ops per step); the results are written so nothing is optimised away.
/// <reference types="@webgpu/types" />
import { loadWebgpuRuntime, type WgslProgram } from '../../src/mgemm/index.js';

const THREADS = 256;
const CHAINS = 8;
const OPS_PER_STEP = 3;

function probeProgram(steps: number): WgslProgram {
  const chains = Array.from({ length: CHAINS }, (_, c) => c);
  return {
    cacheKey: `u32OpRate/${steps}`,
    workgroupSize: [THREADS, 1],
    storage: [{ name: 'out', access: 'read_write', elementType: 'u32' }],
    uniforms: [{ name: 'k', type: 'u32' }],
    extensions: [],
    declarations: '',
    mainBody: [
      ...chains.map((c) => `  var x${c} = wg.x * ${THREADS}u + li + ${c}u;`),
      `  for (var s = 0u; s < ${steps}u; s++) {`,
      ...chains.map((c) => `    x${c} = (x${c} ^ (x${c} >> 3u)) + u.k;`),
      '  }',
      `  out[(wg.x * ${THREADS}u + li) % 65536u] = ${chains.map((c) => `x${c}`).join(' ^ ')};`,
    ].join('\n'),
  };
}

/** u32 operations per second of the default adapter: the best of `reps` timed dispatches of `workgroups` × 256 threads. */
export async function measureU32OpRate(workgroups: number, steps: number, reps: number): Promise<number> {
  const { BUFFER_USAGE, emitShader, openGpuDevice, requestGpuAdapter } = await loadWebgpuRuntime();
  const choice = await requestGpuAdapter();
  if (choice === null) throw new Error('no WebGPU adapter');
  const { device } = await openGpuDevice(choice.adapter);
  try {
    const module = device.createShaderModule({ code: emitShader(probeProgram(steps)) });
    const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const out = device.createBuffer({ size: 65536 * 4, usage: BUFFER_USAGE.STORAGE });
    const uniforms = device.createBuffer({ size: 16, usage: BUFFER_USAGE.UNIFORM | BUFFER_USAGE.COPY_DST });
    device.queue.writeBuffer(uniforms, 0, Uint32Array.of(0x9e3779b9, 0, 0, 0));
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: out } }, { binding: 1, resource: { buffer: uniforms } }] });
    let best = Infinity;
    for (let rep = 0; rep <= reps; rep++) {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(workgroups);
      pass.end();
      const start = performance.now();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      // The first dispatch warms the pipeline up and is not counted.
      if (rep > 0) best = Math.min(best, (performance.now() - start) / 1000);
    }
    out.destroy();
    uniforms.destroy();
    return (workgroups * THREADS * steps * CHAINS * OPS_PER_STEP) / best;
  } finally {
    device.destroy();
  }
}
