// What a rank's run will ask of its kernel set — plane shapes, vector sums, term groups, device finalize — told to the kernel
// set before the rank loads its input, so that a GPU kernel set compiles its programs meanwhile.
import { planeWordsFor, type PopcountGemm, type RunPreview } from '../../mgemm/index.js';
import type { IndexRange } from '../../parallel/index.js';
import { pairCountGroupsOf } from '../../analyses/index.js';
import { slabPlaneWordRanges } from '../blocks/planePacking.js';
import { devicePairFinalizer, deviceTripleFinalizer, type DeviceFinalizeSetting, type RankFinalize } from '../finalize/rankFinalize.js';

/**
 * The requests of a run whose field slab holds global fields `fieldRange`, as pipeline2.ts and pipeline3.ts will make
 * them: 2-way GEMMs (3-way: the plan's block-pair counts' one group), 3-way mGEMM3s, and device finalize when the
 * analysis's device finalizer takes the run; its blocks' plane shape as blockBuild.ts makes it.
 */
export function runPreview(rank: RankFinalize, gemm: PopcountGemm, fieldRange: IndexRange, setting: DeviceFinalizeSetting): RunPreview {
  const { planes, pairs, triples } = rank.analysis;
  const records = rank.sink.writesRecords;
  const histogram = rank.sink.histogramLayout;
  const numFieldLocal = fieldRange.end - fieldRange.begin;
  const shape = {
    numPlanes: planes.numPlanes, wordsPerPlane: planeWordsFor(numFieldLocal),
    planeWordRanges: slabPlaneWordRanges(planes, fieldRange.begin, numFieldLocal),
    vectorSums: { countPlanes: planes.countPlanes, maskPlane: planes.maskPlane },
  };
  if (pairs !== null) {
    const device = devicePairFinalizer(rank, gemm, setting);
    const deviceFinalize = device === null ? null : { kind: 'pairs' as const, values: device.program, records, histogram, windowed: rank.sink.window !== null };
    return { ...shape, pairTermGroups: [...pairs.termGroups], triples: null, deviceFinalize };
  }
  const quads = rank.analysis.quads ?? null;
  if (quads !== null) {
    // mGEMM4 (pipeline4.ts): 2-way GEMMs of pair planes, and of row pairs against vectors; finalized on the host.
    return { ...shape, pairTermGroups: [...quads.plan.termGroups, ...(quads.plan.vectorTermGroups ?? [])], triples: null, deviceFinalize: null };
  }
  if (triples === null) throw new Error('an analysis run with neither pairs, triples nor quadruples');
  const device = deviceTripleFinalizer(rank, gemm, setting);
  const { planePairs, termGroups } = triples.plan;
  const pairCountGroups = pairCountGroupsOf(triples.plan);
  return {
    ...shape,
    pairTermGroups: pairCountGroups.length === 0 ? null : [...pairCountGroups],
    triples: { planePairs, termGroups: [...termGroups] },
    deviceFinalize: device === null ? null : { kind: 'triples', values: device.values, records, histogram },
  };
}
