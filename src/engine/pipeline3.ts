// The 3-way pipeline of one rank: for each block unit of its slab and each j of the unit's stage
// range, one mGEMM3 call — (i AND j) plane products against k's planes — then finalize.
import { pairProductPlanes, type PopcountGemm, type PopcountGemmRequest, type TripleFinalizeResult } from '../../mgemm/index.js';
import { DeviceTripleFinalizer } from './deviceFinalize3.js';
import { finalizeTriples, type DensePairCounts, type PairCounts, type TripleSlice } from './finalize3.js';
import { runOneAhead } from './lookahead.js';
import { reduceOverFields, type PipelineEnv } from './pipeline2.js';
import { tally3Plan, termGroups2 } from './tallyLayout.js';
import type { VectorBlock } from './vectorBlock.js';

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

/** One mGEMM3 call: a j-slice of a unit, with the unit's blocks and (dense) pair counts. */
interface TripleSliceJob {
  readonly jb: VectorBlock;
  readonly kb: VectorBlock;
  readonly jLocal: number;
  readonly iRange: Range;
  readonly kRange: Range;
  readonly pairCounts: DensePairCounts | null;
}

/** The j-slices of the units, in order; blocks and pair counts are fetched as the units come up. */
async function* tripleSliceJobs(env: PipelineEnv, own: VectorBlock, units: readonly TripleUnit[]): AsyncGenerator<TripleSliceJob> {
  const dense = env.ctx.layout.maskPlane === null;
  for (const unit of units) {
    const jb = unit.part === 1 ? own : await env.getBlock(unit.jBlock);
    const kb = unit.part === 3 ? await env.getBlock(unit.kBlock) : jb;
    const slices: [number, Range, Range][] = [];
    forEachTripleSlice(unit, own.numVectorReal, jb.numVectorReal, kb.numVectorReal, (j, i, k) => slices.push([j, i, k]));
    if (slices.length === 0) continue;
    const pairCounts = dense ? await densePairCounts(env, own, jb, kb) : null;
    for (const [jLocal, iRange, kRange] of slices) yield { jb, kb, jLocal, iRange, kRange, pairCounts };
  }
}

/** Triples finalized by a rank, and how many of them on the device. */
export interface TripleUnitsOutcome {
  readonly numTriples: number;
  readonly numDeviceTriples: number;
}

/**
 * Runs the units; returns the triples finalized here. The GEMM of the next slice is started before the current
 * one is finalized (see lookahead.ts). Where the kernel set and the run allow it, slices are finalized on the
 * device (deviceFinalize3.ts): their tallies never come back.
 */
export async function runTripleUnits(env: PipelineEnv, own: VectorBlock, units: readonly TripleUnit[]): Promise<TripleUnitsOutcome> {
  const plan = tally3Plan(env.ctx.layout);
  const isFinalizer = env.fieldComm.rank === 0;
  let numTriples = 0;
  let numDeviceTriples = 0;
  const gemmRequest = (job: TripleSliceJob): PopcountGemmRequest => {
    const numI = job.iRange.end - job.iRange.first;
    const products = pairProductPlanes(own.planes, job.iRange.first, numI, job.jb.planes, job.jLocal, plan.planePairs);
    return {
      a: products, aFirst: 0, aCount: numI, b: job.kb.planes, bFirst: job.kRange.first, bCount: job.kRange.end - job.kRange.first,
      termGroups: plan.termGroups, strictUpper: false,
    };
  };
  const startGemm = (job: TripleSliceJob): Promise<Uint32Array[]> => env.gemm.run(gemmRequest(job));
  const sliceOf = (job: TripleSliceJob): TripleSlice => ({
    iBlock: own, iFirst: job.iRange.first, numI: job.iRange.end - job.iRange.first, jBlock: job.jb, jLocal: job.jLocal,
    kBlock: job.kb, kFirst: job.kRange.first, numK: job.kRange.end - job.kRange.first,
  });
  const device = DeviceTripleFinalizer.forRun(env.ctx, env.gemm, env.fieldComm, {
    placement: env.finalizePlacement, writesRecords: env.ctx.sink.writesRecords,
  });
  const start = (job: TripleSliceJob): Promise<Uint32Array[] | TripleFinalizeResult> =>
    device?.start(gemmRequest(job), sliceOf(job), job.pairCounts) ?? startGemm(job);
  await runOneAhead(tripleSliceJobs(env, own, units), start, async (job, started) => {
    const slice = sliceOf(job);
    let done = slice.numI * slice.numK;
    if (!Array.isArray(started) && started.kind === 'done') {
      device?.apply(slice, started);
      numDeviceTriples += done;
    } else {
      // Host finalize; a slice the device declined ('needsHost') is computed again, with its tallies read back.
      const tallies = await reduceOverFields(env.fieldComm, Array.isArray(started) ? started : await startGemm(job));
      if (isFinalizer) done = finalizeTriples(env.ctx, slice, plan.products, tallies, job.pairCounts);
    }
    if (isFinalizer) numTriples += done;
    env.onWork(done * env.ctx.numField);
  });
  return { numTriples, numDeviceTriples };
}

/** Σ c_x c_y between the unit's blocks: the 2-way parts of dense 3-way tallies. */
async function densePairCounts(env: PipelineEnv, ib: VectorBlock, jb: VectorBlock, kb: VectorBlock): Promise<DensePairCounts> {
  const cache = new Map<string, PairCounts>();
  const counts = async (x: VectorBlock, y: VectorBlock): Promise<PairCounts> => {
    const key = `${x.blockIdx},${y.blockIdx}`;
    let pc = cache.get(key);
    if (pc === undefined) {
      pc = await pairCounts(env.gemm, env, x, y);
      cache.set(key, pc);
    }
    return pc;
  };
  return { ij: await counts(ib, jb), ik: await counts(ib, kb), jk: await counts(jb, kb) };
}

async function pairCounts(gemm: PopcountGemm, env: PipelineEnv, x: VectorBlock, y: VectorBlock): Promise<PairCounts> {
  const groups = termGroups2(env.ctx.layout).slice(0, 1);
  const partial = await gemm.run({
    a: x.planes, aFirst: 0, aCount: x.numVectorReal, b: y.planes, bFirst: 0, bCount: y.numVectorReal,
    termGroups: groups, strictUpper: false,
  });
  const [data] = await reduceOverFields(env.fieldComm, partial);
  return { data, numCols: y.numVectorReal };
}
