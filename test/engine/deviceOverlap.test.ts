// Device finalize with requests in flight together: rank 0 of a multi-block job runs its 2-way steps or 3-way
// units (several panels / batches) through the pipelines on the webgpu kernel set and on the ref kernels. The
// checksum, counts and records (every record in emitted order) are the same; the webgpu run had two finalize
// requests submitted with neither collected (the next panel queued before the last one's results came back);
// without a threshold some requests overflow their record room and run again while another is in flight; and
// the kernel set, told the run's preview before its input, compiled every program the run used ahead of it. With
// histograms (counted on the device per request, zeroed when a request runs again) the counts equal ref's.
import { describe, expect, it } from 'vitest';
import { createPopcountGemm, createPopcountGemmWebgpu, type PopcountGemm, type PopcountGemmWebgpu } from '../../src/mgemm/index.js';
import { LocalCommunicator } from '../../src/parallel/index.js';
import { buildOwnPlanes, sumOwnBlock } from '../../src/engine/blocks/blockExchange.js';
import { EntrySink, type RecordWriter } from '../../src/engine/finalize/entrySink.js';
import { HistogramCounter, type HistogramTotals } from '../../src/engine/finalize/histogramSink.js';
import { loadBuiltInAnalysis } from '../../src/analyses/index.js';
import type { JobSpec } from '../../src/engine/run/jobSpec.js';
import type { RankFinalize } from '../../src/engine/finalize/rankFinalize.js';
import { hostFinalizerFor, rankFinalizeFor } from '../helpers/rankFinalize.js';
import { runPairSteps } from '../../src/engine/pipeline/pipeline2.js';
import { runTripleUnits } from '../../src/engine/pipeline/pipeline3.js';
import { rankLayout } from '../../src/engine/run/rankPlans.js';
import { runPreview } from '../../src/engine/run/runPreview.js';
import { planeLayout } from '../helpers/layouts.js';
import { finishedPlanes, type ReceivedBlocks, type VectorBlock } from '../../src/engine/blocks/vectorBlock.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { makeJob } from './jobFixtures.js';

const gate = await webgpuGate();

/** What rank 0 emitted: checksum totals, records (coordinates and value bits, in order), device requests. */
interface RankResult {
  readonly checksum: { readonly sum: bigint; readonly entries: number; readonly zeros: number };
  readonly records: number[];
  readonly numDeviceTuples: number;
  readonly numFinalizeRequests: number;
  /** The histogram's totals, when the run counted one. */
  readonly histogram: HistogramTotals | null;
}

/** Keeps every record: coordinates then the value's bits. */
function collectingWriter(numWay: number, into: number[]): RecordWriter {
  return {
    appendRecordWords(words, numRecords) {
      for (const word of words.subarray(0, numRecords * (numWay + 1))) into.push(word);
    },
  };
}

/** Every vector block of the job, built as its owner rank would (one field slab). */
async function allBlocks(job: JobSpec, gemm: PopcountGemm): Promise<VectorBlock[]> {
  const planes = planeLayout(job.metricSpec.metric, job.metricSpec.sparse);
  const fieldComm = await new LocalCommunicator().split(0, 0);
  const blocks: VectorBlock[] = [];
  for (let rank = 0; rank < job.decomposition.numProcVector; rank++) {
    const layout = rankLayout(job, rank);
    const block = await sumOwnBlock(job, layout, planes, await buildOwnPlanes(job, layout, planes, 1), fieldComm, gemm);
    blocks[block.blockIdx] = block;
  }
  return blocks;
}

/** How rank 0 runs: records kept, a histogram counted, and what sees the run's context first. */
interface RankRunOptions {
  readonly records: boolean;
  readonly histogram?: boolean;
  readonly beforeRun?: (run: RankFinalize) => void;
}

/** Runs rank 0's steps or units on `gemm`. */
async function runRank0(job: JobSpec, gemm: PopcountGemm, options: RankRunOptions): Promise<RankResult> {
  const { records, histogram = false, beforeRun = () => undefined } = options;
  const layout = rankLayout(job, 0);
  const fieldComm = await new LocalCommunicator().split(0, 0);
  const numWay = job.metricSpec.numWay;
  const emitted: number[] = [];
  const layout0 = (await loadBuiltInAnalysis(job.metricSpec.metric)).forRun({ spec: job.metricSpec, numVector: job.numVector, numField: job.numField }).histogramLayout?.();
  const counter = histogram && layout0 !== undefined ? new HistogramCounter(layout0) : null;
  const sink = new EntrySink(job.numVector, numWay, job.threshold, records ? collectingWriter(numWay, emitted) : null, { histogram: counter });
  const run = await rankFinalizeFor(job, sink);
  let numFinalizeRequests = 0;
  const finalizePairs = gemm.finalizePairs?.bind(gemm);
  const finalizeTriples = gemm.finalizeTriples?.bind(gemm);
  const counted: PopcountGemm = {
    name: gemm.name, numThreads: gemm.numThreads, device: gemm.device,
    run: (request) => gemm.run(request),
    run3: (request) => gemm.run3(request),
    vectorSums: (request) => gemm.vectorSums(request),
    ...(finalizePairs === undefined ? {} : {
      finalizePairs: (request) => {
        numFinalizeRequests++;
        return finalizePairs(request);
      },
    }),
    ...(finalizeTriples === undefined ? {} : {
      finalizeTriples: (request) => {
        numFinalizeRequests++;
        return finalizeTriples(request);
      },
    }),
    close: () => gemm.close(),
  };
  beforeRun(run);
  const blocks = await allBlocks(job, gemm);
  const own = blocks[layout.coords.vectorIdx];
  const hostFinalizer = hostFinalizerFor(job, run);
  const env = { run, gemm: counted, fieldComm, blocks: blocksAtHand(blocks), finalizePlacement: job.finalize, hostFinalizer, onWork: () => undefined };
  let numDeviceTuples = 0;
  if (numWay === 2) {
    numDeviceTuples = (await runPairSteps(env, own, layout.pairSteps)).numDevicePairs;
  } else {
    for (const units of layout.tripleUnitsByStage) numDeviceTuples += (await runTripleUnits(env, own, units)).numDeviceTriples;
  }
  sink.flush();
  return {
    checksum: { sum: sink.checksum.sum(), entries: sink.checksum.entries, zeros: sink.checksum.zeros }, records: emitted, numDeviceTuples,
    numFinalizeRequests, histogram: counter?.totals() ?? null,
  };
}

const CASES = [
  // Blocks of 150: an off-diagonal step has 22 500 pairs, 90 000 records without a threshold (more than the first room).
  { name: '2-way CCC dense nv 600 nf 40, npv 4, no threshold', job: makeJob({ numVector: 600, numField: 40, decomposition: { numProcVector: 4 } }) },
  { name: '2-way DUO sparse nv 300 nf 70, npv 5, threshold 0.5', job: makeJob({ metric: 'duo', sparse: true, numVector: 300, numField: 70, threshold: 0.5, decomposition: { numProcVector: 5 } }) },
  // Blocks of 25: a cube unit has 15 625 triples, 125 000 records without a threshold.
  { name: '3-way CCC sparse nv 75 nf 40, npv 3, no threshold', job: makeJob({ numWay: 3, sparse: true, numVector: 75, numField: 40, decomposition: { numProcVector: 3 } }) },
  { name: '3-way CCC dense nv 60 nf 50, npv 3, threshold 0.3', job: makeJob({ numWay: 3, numVector: 60, numField: 50, threshold: 0.3, decomposition: { numProcVector: 3 } }) },
];

describe.skipIf(!gate.available)(`device finalize with requests in flight (${gate.description})`, () => {
  describe.each(CASES)('$name', ({ job }) => {
    it.each([{ records: true }, { records: false }])('equals ref, with two requests in flight (records: $records)', async ({ records }) => {
      const ref = await createPopcountGemm({ backend: 'ref' });
      const want = await runRank0(job, ref, { records });
      await ref.close();
      const webgpu: PopcountGemmWebgpu = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
      try {
        let prepared: readonly string[] = [];
        const got = await runRank0(job, webgpu, {
          records,
          beforeRun: (run) => {
            webgpu.prepareStart(runPreview(run, webgpu, { begin: 0, end: job.numField }, { placement: job.finalize, fieldComm: new LocalCommunicator() }));
            prepared = [...webgpu.compiledPrograms];
          },
        });
        expect(got.numFinalizeRequests).toBeGreaterThanOrEqual(3);
        expect(got.numDeviceTuples).toBeGreaterThan(0);
        expect(got.checksum).toEqual(want.checksum);
        expect(got.checksum.entries).toBeGreaterThan(0);
        expect(got.records.length).toBe(records ? (job.metricSpec.numWay + 1) * want.checksum.entries : 0);
        expect(got.records).toEqual(want.records);
        expect(webgpu.transfers.peakPendingReadBacks).toBe(2);
        expect([...webgpu.compiledPrograms].sort()).toEqual([...prepared].sort());
      } finally {
        await webgpu.close();
      }
    });

    it('counts histograms on the device equal to ref\'s, requests in flight and run again', async () => {
      const ref = await createPopcountGemm({ backend: 'ref' });
      const want = await runRank0(job, ref, { records: true, histogram: true });
      await ref.close();
      const webgpu: PopcountGemmWebgpu = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
      try {
        let prepared: readonly string[] = [];
        const got = await runRank0(job, webgpu, {
          records: true,
          histogram: true,
          beforeRun: (run) => {
            webgpu.prepareStart(runPreview(run, webgpu, { begin: 0, end: job.numField }, { placement: job.finalize, fieldComm: new LocalCommunicator() }));
            prepared = [...webgpu.compiledPrograms];
          },
        });
        expect(got.numDeviceTuples).toBeGreaterThan(0);
        expect(got.histogram).not.toBeNull();
        expect(got.histogram).toEqual(want.histogram);
        expect(got.records).toEqual(want.records);
        expect(prepared.some((key) => key.includes('/histogram:'))).toBe(true);
        expect([...webgpu.compiledPrograms].sort()).toEqual([...prepared].sort());
      } finally {
        await webgpu.close();
      }
    });
  });
});

/** Blocks that are all here already, as the exchange gives them. */
function blocksAtHand(blocks: readonly VectorBlock[]): ReceivedBlocks {
  return { block: (idx) => Promise.resolve(blocks[idx]), arriving: (idx) => Promise.resolve(finishedPlanes(blocks[idx].planes)) };
}
