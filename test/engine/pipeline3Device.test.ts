// The 3-way pipeline with finalize on the device, run directly on one rank: batches of j-slices go to the kernel
// set's finalizeTriples whole (run3-shaped), no tally comes back (no run3, no 3-way run call), no pair-product
// planes are built on the host (every matrix the kernel set sees is a vector block's own planes), and the bytes
// moved to and from the GPU stay far below what per-j product uploads or tally read-backs would need; the
// checksum equals the host finalize's (run3 + CPU finalize3) on the same kernel set and on the ref kernels.
import { describe, expect, it } from 'vitest';
import {
  createPopcountGemm, createPopcountGemmWebgpu, TRIPLE_VECTOR_WORDS, type PlaneMatrix, type PopcountGemm, type PopcountGemmWebgpu,
} from '../../src/mgemm/index.js';
import { LocalCommunicator } from '../../src/parallel/index.js';
import { buildOwnPlanes, sumOwnBlock, startBlockExchange } from '../../src/engine/blocks/blockExchange.js';
import { EntrySink } from '../../src/engine/finalize/entrySink.js';
import type { FinalizePlacement, JobSpec } from '../../src/engine/run/jobSpec.js';
import { hostFinalizerFor, rankFinalizeFor } from '../helpers/rankFinalize.js';
import { runTripleUnits } from '../../src/engine/pipeline/pipeline3.js';
import { rankLayout } from '../../src/engine/run/rankPlans.js';
import { planeLayout, tally3Plan } from '../helpers/layouts.js';
import type { ReceivedBlocks, VectorBlock } from '../../src/engine/blocks/vectorBlock.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob } from './jobFixtures.js';

const gate = await webgpuGate();

/** What the pipeline asked of a kernel set. */
interface Calls {
  run: number;
  run3: number;
  finalizeTriples: number;
  slicesFinalized: number;
  /** Bytes of the per-slice finalize words of those requests (vector words of rows, j, columns; dense T[ccm], T[mcc]). */
  sliceWordBytes: number;
  /** Every plane matrix the pipeline handed over. */
  matrices: Set<PlaneMatrix>;
}

/** Delegates to `gemm` and counts what the pipeline calls. */
function counting(gemm: PopcountGemm): { gemm: PopcountGemm; calls: Calls } {
  const calls: Calls = { run: 0, run3: 0, finalizeTriples: 0, slicesFinalized: 0, sliceWordBytes: 0, matrices: new Set() };
  const finalizeTriples = gemm.finalizeTriples?.bind(gemm);
  const wrapped: PopcountGemm = {
    name: gemm.name,
    numThreads: gemm.numThreads,
    device: gemm.device,
    run: (request) => {
      calls.run++;
      calls.matrices.add(request.a).add(request.b);
      return gemm.run(request);
    },
    run3: (request) => {
      calls.run3++;
      calls.matrices.add(request.x).add(request.y).add(request.z);
      return gemm.run3(request);
    },
    vectorSums: (request) => gemm.vectorSums(request),
    ...(finalizeTriples === undefined ? {} : {
      finalizeTriples: (request) => {
        calls.finalizeTriples++;
        calls.slicesFinalized += request.gemm.slices.length;
        for (const { xCount, zCount } of request.gemm.slices) {
          calls.sliceWordBytes += 4 * ((xCount + 1 + zCount) * TRIPLE_VECTOR_WORDS + (!('pairCounts' in request) || request.pairCounts === null ? 0 : xCount + zCount));
        }
        calls.matrices.add(request.gemm.x).add(request.gemm.y).add(request.gemm.z);
        return finalizeTriples(request);
      },
    }),
    close: () => gemm.close(),
  };
  return { gemm: wrapped, calls };
}

/** Runs every stage of rank 0 of a one-rank job through runTripleUnits; returns its checksum and the blocks seen. */
async function runRank0(job: JobSpec, gemm: PopcountGemm, placement: FinalizePlacement): Promise<{
  checksum: { sum: bigint; entries: number; zeros: number }; numTriples: number; numDeviceTriples: number; blocks: VectorBlock[];
}> {
  const comm = new LocalCommunicator();
  const layout = rankLayout(job, 0);
  const planes = planeLayout(job.metricSpec.metric, job.metricSpec.sparse);
  const fieldComm = await comm.split(0, 0);
  const filling = await buildOwnPlanes(job, layout, planes, 1);
  const summing = sumOwnBlock(job, layout, planes, filling, fieldComm, gemm);
  const exchange = startBlockExchange(comm, layout, filling, summing);
  const own = await summing;
  const blocks = [own];
  const received: ReceivedBlocks = {
    block: async (idx) => {
      const block = await exchange.block(idx);
      blocks.push(block);
      return block;
    },
    arriving: (idx) => exchange.arriving(idx),
  };
  const sink = new EntrySink(job.numVector, 3, job.threshold, null);
  const run = await rankFinalizeFor(job, sink);
  let numTriples = 0;
  let numDeviceTriples = 0;
  const hostFinalizer = hostFinalizerFor(job, run);
  for (const units of layout.tripleUnitsByStage) {
    const outcome = await runTripleUnits({ run, gemm, fieldComm, blocks: received, finalizePlacement: placement, hostFinalizer, onWork: () => undefined }, own, units);
    numTriples += outcome.numTriples;
    numDeviceTriples += outcome.numDeviceTriples;
  }
  return { checksum: { sum: sink.checksum.sum(), entries: sink.checksum.entries, zeros: sink.checksum.zeros }, numTriples, numDeviceTriples, blocks };
}

const triplesOf = (n: number): number => (n * (n - 1) * (n - 2)) / 6;

describe.skipIf(!gate.available)(`3-way pipeline with device finalize (${gate.description})`, () => {
  it.each([
    { name: 'CCC sparse nv 40 nf 2000, threshold 0.3', job: makeJob({ numWay: 3, sparse: true, numVector: 40, numField: 2000, threshold: 0.3, backend: 'webgpu' }) },
    { name: 'DUO dense nv 37 nf 1500, no threshold', job: makeJob({ metric: 'duo', numWay: 3, numVector: 37, numField: 1500, backend: 'webgpu' }) },
  ])('builds no products on the host and reads no tallies back: $name', async ({ job }) => {
    const webgpu: PopcountGemmWebgpu = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    const { gemm, calls } = counting(webgpu);
    try {
      const device = await runRank0(job, gemm, 'auto');
      expect(device.numTriples).toBe(triplesOf(job.numVector));
      expect(device.numDeviceTriples).toBe(device.numTriples);
      // Whole batches went to finalizeTriples; nothing went through run3 (tallies read back), and run only
      // computed dense 2-way pair counts of whole blocks.
      expect(calls.run3).toBe(0);
      expect(calls.finalizeTriples).toBeGreaterThan(0);
      expect(calls.slicesFinalized).toBeGreaterThan(calls.finalizeTriples);
      if (job.metricSpec.sparse) expect(calls.run).toBe(0);
      const blockPlanes = new Set(device.blocks.map((b) => b.planes));
      for (const m of calls.matrices) expect(blockPlanes.has(m)).toBe(true);

      // Uploads: the block's planes (kept on the GPU), the slices' small finalize words, dense T[cmc] once, and the
      // status words of each submit (at most a few per request here), slices' words aligned to 256 bytes in their
      // buffer — nothing in proportion to (i AND j) products.
      const { uploadedBytes, readBackBytes } = webgpu.transfers;
      const own = device.blocks[0];
      const n = own.numVectorReal;
      const pairCountBytes = job.metricSpec.sparse ? 0 : 4 * n * n;
      expect(uploadedBytes).toBeLessThanOrEqual(own.planes.words.byteLength + calls.sliceWordBytes + 256 * calls.slicesFinalized + pairCountBytes + 16 * 4 * calls.finalizeTriples);
      const plan = tally3Plan(planeLayout(job.metricSpec.metric, job.metricSpec.sparse));
      let productBytes = 0;
      for (let j = 0; j < n; j++) productBytes += 4 * plan.planePairs.length * own.planes.wordsPerPlane * j;
      expect(uploadedBytes - own.planes.words.byteLength).toBeLessThan(productBytes);
      // Read-backs: dense pair counts (one block-pair matrix), then per submit status, partials (32 bytes per
      // finalize workgroup, one per ≤ 32 × 32 triples of a slice) and records (none: no output file).
      let partialBytes = 0;
      for (let j = 0; j < n; j++) partialBytes += 32 * Math.ceil(j / 32) * Math.ceil(n / 32);
      expect(readBackBytes).toBeLessThanOrEqual(pairCountBytes + partialBytes + 16 * calls.finalizeTriples * 4);
      expect(readBackBytes).toBeLessThan(4 * plan.termGroups.length * triplesOf(n));

      // The same kernel set with host finalize (run3 + CPU finalize3), and the ref kernels, give the same checksum.
      const host = await runRank0(job, gemm, 'host');
      expect(host.numDeviceTriples).toBe(0);
      expect(calls.run3).toBeGreaterThan(0);
      expect(device.checksum).toEqual(host.checksum);
      const ref = await createPopcountGemm({ backend: 'ref', numThreads: 1 });
      try {
        expect((await runRank0({ ...job, backend: 'ref' }, ref, 'auto')).checksum).toEqual(device.checksum);
      } finally {
        await ref.close();
      }
      expect(device.checksum.entries).toBeGreaterThan(0);
    } finally {
      await gemm.close();
    }
  });
});
