// The 3-way pipeline of one rank: for each block unit of its slab, its j-slices (the unit's stage range)
// in batches, one mGEMM3 call per batch — (i AND j) plane products against k's planes, built by the
// kernel set — then finalize on the host (slices in order, hostFinalizer.ts), or the whole batch on the device; the
// analysis says which tallies (its TriplePlan) and how they become values.
import type { PopcountGemm3Request, TermGroup, TripleFinalizeResult } from '../../mgemm/index.js';
import { pairCountGroupsOf, type BlockPairCounts, type PairCounts, type TripleBatch as AnalysisTripleBatch, type TriplePlan, type TripleSlice } from '../../analyses/index.js';
import { deviceTripleFinalizer } from '../finalize/rankFinalize.js';
import { runOneAhead } from './lookahead.js';
import { RecordedTriplesPerCall, TOP_FIRST_TRIPLES_PER_CALL } from './recordedTriplesPerCall.js';
import { reduceOverFields, type PipelineEnv } from './pipeline2.js';
import type { VectorBlock } from '../blocks/vectorBlock.js';

/** One block unit of a slab for one stage (see parallel/slabPlan): blocks and the section to compute. */
export interface TripleUnit {
  /** 1: tetrahedron i<j<k in the own block; 2: prism, i in own block, j<k in block J; 3: cube section. */
  readonly part: 1 | 2 | 3;
  readonly jBlock: number;
  readonly kBlock: number;
  /** Axis the section range applies to: 0 = i, 1 = j, 2 = k. */
  readonly sectionAxis: 0 | 1 | 2;
  readonly sectionFirst: number;
  /** Exclusive. */
  readonly sectionEnd: number;
}

/** A half-open range of local vector indices. */
export interface Range { readonly first: number; readonly end: number }

const intersect = (a: Range, b: Range): Range => ({ first: Math.max(a.first, b.first), end: Math.min(a.end, b.end) });

/**
 * Calls `visit(jLocal, iRange, kRange)` for every non-empty j-slice of a unit, given the real vector
 * counts of blocks i, J and K: part 1 keeps i < j < k, part 2 keeps j < k, part 3 the whole cube;
 * the unit's section range restricts its axis.
 */
export function forEachTripleSlice(
  unit: TripleUnit, numI: number, numJ: number, numK: number, visit: (jLocal: number, i: Range, k: Range) => void,
): void {
  const section: Range = { first: unit.sectionFirst, end: unit.sectionEnd };
  const on = (axis: number, n: number): Range => (unit.sectionAxis === axis ? intersect({ first: 0, end: n }, section) : { first: 0, end: n });
  const jRange = on(1, numJ);
  for (let j = jRange.first; j < jRange.end; j++) {
    let i = on(0, numI);
    let k = on(2, numK);
    if (unit.part === 1) i = intersect(i, { first: 0, end: j });
    if (unit.part !== 3) k = intersect(k, { first: j + 1, end: numK });
    if (i.end > i.first && k.end > k.first) visit(j, i, k);
  }
}

/** A j-slice of a unit: local j of the J block, with its i (own block) and k (K block) ranges. */
export interface JSlice {
  readonly jLocal: number;
  readonly iRange: Range;
  readonly kRange: Range;
}

/** One mGEMM3 call: consecutive j-slices of one unit, with the unit's blocks and the pair counts the plan asks for. */
export interface TripleBatch extends AnalysisTripleBatch {
  readonly slices: readonly JSlice[];
}

/**
 * Tally bytes of one mGEMM3 call. Several j-slices per call keep a GPU busy between read-backs (one
 * slice of nv 768 nf 16384 is ~0.1 ms of tensor-core GEMM on an H100) and amortize each call's fixed cost; the bound
 * keeps the two calls in flight (lookahead) to about 512 MiB of host memory at most. 256 MiB rather than 64: on the
 * H100, nv 4096 nf 16384 took 5.1–5.2 s instead of 5.5–5.6 s (3.1–3.4 s instead of 3.7–4.2 s with a threshold),
 * since per-call host work left the GPU idle between calls (SNPTALLY_GPU_PROFILE: 4.6 s of GPU time in a 6.3 s compute).
 */
export const TALLY_BYTES_PER_CALL = 256 << 20;

/**
 * Tally bytes of one device-finalized mGEMM3 call: its tallies never leave the GPU (sub-blocks bound their buffer),
 * so larger calls only mean fewer of them; with records, RecordedTriplesPerCall bounds its triples too. H100, nv 4096 nf 16384 `--threshold 0.4`: 1.66–1.70 s
 * against 1.78–1.80 s at 256 MiB (no change without a threshold). A batch the device declines (a passing value
 * outside the checksum's range) is computed again with its tallies read back: up to 1 GiB of host memory, once.
 */
export const DEVICE_TALLY_BYTES_PER_CALL = 1 << 30;

/** Bounds of the next batch: tally bytes (at `numGroups` u32 per triple) and triples. */
interface BatchLimits {
  readonly maxBytes: number;
  readonly maxTriples: number;
}

/**
 * The units' j-slices in batches within `limits()` (read as each batch starts: device calls with records size
 * from the calls before), in order; blocks and pair counts are fetched as the units come up.
 */
async function* tripleBatches(
  env: PipelineEnv, own: VectorBlock, units: readonly TripleUnit[], plan: TriplePlan, limits: () => BatchLimits, withTranspose: boolean,
): AsyncGenerator<TripleBatch> {
  const numGroups = plan.termGroups.length;
  const pairCountGroups = pairCountGroupsOf(plan);
  for (const unit of units) {
    const jb = unit.part === 1 ? own : await env.blocks.block(unit.jBlock);
    const kb = unit.part === 3 ? await env.blocks.block(unit.kBlock) : jb;
    const slices: JSlice[] = [];
    forEachTripleSlice(unit, own.numVectorReal, jb.numVectorReal, kb.numVectorReal, (jLocal, iRange, kRange) => slices.push({ jLocal, iRange, kRange }));
    if (slices.length === 0) continue;
    const pairCounts = pairCountGroups.length > 0 ? await blockPairCounts(env, pairCountGroups, own, jb, kb, withTranspose) : null;
    for (const batch of sliceBatches(slices, numGroups, limits)) yield { jb, kb, slices: batch, pairCounts };
  }
}

/**
 * Consecutive slices in batches of at most `maxBytes` of tallies (numGroups u32 per triple) and `maxTriples`
 * triples, the limits read when each batch starts; a slice larger than that is a batch of its own.
 */
export function* sliceBatches(slices: readonly JSlice[], numGroups: number, limits: () => BatchLimits): Generator<JSlice[]> {
  let batch: JSlice[] = [];
  let batchTriples = 0;
  let limit = limits();
  for (const slice of slices) {
    const triples = (slice.iRange.end - slice.iRange.first) * (slice.kRange.end - slice.kRange.first);
    if (batch.length > 0 && ((batchTriples + triples) * 4 * numGroups > limit.maxBytes || batchTriples + triples > limit.maxTriples)) {
      yield batch;
      batch = [];
      batchTriples = 0;
      limit = limits();
    }
    batch.push(slice);
    batchTriples += triples;
  }
  if (batch.length > 0) yield batch;
}

/** Triples finalized by a rank, and how many of them on the device. */
export interface TripleUnitsOutcome {
  readonly numTriples: number;
  readonly numDeviceTriples: number;
  /** Records the device finalize returned (passing the threshold and, in a top-N run, the records-only bar). */
  readonly numDeviceRecords: number;
}

/** The mGEMM3 request of a batch: x = own block, y = J block, z = K block. */
export function tripleBatchRequest(own: VectorBlock, batch: TripleBatch, plan: TriplePlan): PopcountGemm3Request {
  return {
    x: own.planes, y: batch.jb.planes, z: batch.kb.planes, planePairs: plan.planePairs, termGroups: [...plan.termGroups],
    blockIndices: [own.blockIdx, batch.jb.blockIdx, batch.kb.blockIdx],
    slices: batch.slices.map(({ jLocal, iRange, kRange }) => ({
      yRow: jLocal, xFirst: iRange.first, xCount: iRange.end - iRange.first, zFirst: kRange.first, zCount: kRange.end - kRange.first,
    })),
  };
}

/**
 * Runs the units; returns the triples finalized here. The mGEMM3 of the next batch is started before the
 * current one is finalized (see lookahead.ts). Where the kernel set and the run allow it, whole batches are
 * computed and finalized on the device (the analysis's device finalizer): pair products, GEMMs and finalize run where the
 * planes lie and the tallies never come back. A batch the device declines ('needsHost') is computed again
 * with run3 and finalized on the host, as every batch is without device finalize.
 */
export async function runTripleUnits(env: PipelineEnv, own: VectorBlock, units: readonly TripleUnit[]): Promise<TripleUnitsOutcome> {
  const triples = env.run.analysis.triples;
  if (triples === null) throw new Error('a 3-way run of an analysis without triples');
  const plan = triples.plan;
  const isFinalizer = env.fieldComm.rank === 0;
  let numTriples = 0;
  let numDeviceTriples = 0;
  let numDeviceRecords = 0;
  const device = deviceTripleFinalizer(env.run, env.gemm, { placement: env.finalizePlacement, fieldComm: env.fieldComm });
  const startGemm = (batch: TripleBatch): Promise<Uint32Array[][]> => env.gemm.run3(tripleBatchRequest(own, batch, plan));
  const start = (batch: TripleBatch): Promise<Uint32Array[][] | TripleFinalizeResult> =>
    device?.start(own, batch, tripleBatchRequest(own, batch, plan)) ?? startGemm(batch);
  // A top-N run's records-only bar comes from the batches finished: its first batch is small and goes alone.
  const barred = device !== null && (env.run.topRecords ?? null) !== null;
  const recorded = device !== null && env.run.sink.writesRecords
    ? new RecordedTriplesPerCall(barred ? { firstTriples: TOP_FIRST_TRIPLES_PER_CALL, firstUnbarred: true } : {}) : null;
  const maxBytes = device !== null ? DEVICE_TALLY_BYTES_PER_CALL : TALLY_BYTES_PER_CALL;
  const limits = (): BatchLimits => ({ maxBytes, maxTriples: recorded?.limit ?? Infinity });
  await runOneAhead(tripleBatches(env, own, units, plan, limits, device !== null), start, async (batch, started) => {
    if (!Array.isArray(started) && started.kind === 'done') {
      numDeviceRecords += started.records.count;
      device?.apply(started, env.run.sink);
      const done = triplesOf(batch);
      recorded?.observe(done, started.records.count);
      numDeviceTriples += done;
      if (isFinalizer) numTriples += done;
      env.onWork(done * env.run.numField);
      return;
    }
    // Host finalize; a batch the device declined is computed again, with its tallies read back.
    const partials = Array.isArray(started) ? started : await startGemm(batch);
    const sliceRun: { slices: TripleSlice[]; tallies: Uint32Array[][] } = { slices: [], tallies: [] };
    for (let s = 0; s < batch.slices.length; s++) {
      const { jLocal, iRange, kRange } = batch.slices[s];
      const numI = iRange.end - iRange.first;
      const numK = kRange.end - kRange.first;
      const tallies = await reduceOverFields(env.fieldComm, partials[s]);
      if (isFinalizer) {
        sliceRun.slices.push({ iBlock: own, iFirst: iRange.first, numI, jBlock: batch.jb, jLocal, kBlock: batch.kb, kFirst: kRange.first, numK });
        sliceRun.tallies.push(tallies);
      } else {
        env.onWork(numI * numK * env.run.numField);
      }
    }
    if (isFinalizer) {
      numTriples += await env.hostFinalizer.finalizeTriples(
        { ...sliceRun, pairCounts: batch.pairCounts }, (done) => env.onWork(done * env.run.numField),
      );
    }
    // Nothing reads the batch's tallies any more (summed over field slabs, they went to other ranks too: kept).
    if (env.fieldComm.size === 1) env.gemm.recycle?.(partials.flat());
  }, { firstAlone: barred });
  return { numTriples, numDeviceTriples, numDeviceRecords };
}

/** Triples of a batch's slices. */
function triplesOf(batch: TripleBatch): number {
  let numTriples = 0;
  for (const { iRange, kRange } of batch.slices) numTriples += (iRange.end - iRange.first) * (kRange.end - kRange.first);
  return numTriples;
}

/**
 * Tallies of the plan's pair-count groups between the unit's blocks (e.g. the 2-way parts of dense CCC 3-way); with
 * `withTranspose` also j × i (device finalize reads a j row of ij: a GEMM, where transposing on the host took
 * ~0.15 s per 4096² matrix).
 */
async function blockPairCounts(
  env: PipelineEnv, groups: readonly TermGroup[], ib: VectorBlock, jb: VectorBlock, kb: VectorBlock, withTranspose: boolean,
): Promise<BlockPairCounts> {
  const cache = new Map<string, PairCounts>();
  const counts = async (x: VectorBlock, y: VectorBlock): Promise<PairCounts> => {
    const key = `${x.blockIdx},${y.blockIdx}`;
    let pc = cache.get(key);
    if (pc === undefined) {
      pc = await pairCounts(env, groups, x, y);
      cache.set(key, pc);
    }
    return pc;
  };
  return { ij: await counts(ib, jb), ik: await counts(ib, kb), jk: await counts(jb, kb), ji: withTranspose ? await counts(jb, ib) : null };
}

async function pairCounts(env: PipelineEnv, groups: readonly TermGroup[], x: VectorBlock, y: VectorBlock): Promise<PairCounts> {
  const partial = await env.gemm.run({
    a: x.planes, aFirst: 0, aCount: x.numVectorReal, b: y.planes, bFirst: 0, bCount: y.numVectorReal,
    termGroups: [...groups], strictUpper: false,
  });
  const tallies = await reduceOverFields(env.fieldComm, partial);
  return { data: tallies[0], numCols: y.numVectorReal, groups: tallies };
}
