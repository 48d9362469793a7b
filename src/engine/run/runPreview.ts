// What a rank's run will ask of its kernel set — plane shapes, vector sums, term groups, device finalize — told to the kernel
// set before the rank loads its input, so that a GPU kernel set compiles its programs meanwhile.
import { planeWordsFor, type PopcountGemm, type RunPreview } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { DevicePairFinalizer } from '../finalize/deviceFinalize2.js';
import { DeviceTripleFinalizer } from '../finalize/deviceFinalize3.js';
import { termGroupsR2 } from '../finalize/finalizeR2.js';
import type { FinalizePlacement } from './jobSpec.js';
import type { MetricContext } from '../finalize/metricContext.js';
import { tally3Plan, termGroups2 } from '../finalize/tallyLayout.js';

/**
 * The requests of a run whose field slab has `numFieldLocal` fields, as pipeline2.ts and pipeline3.ts will make
 * them: 2-way GEMMs (3-way dense runs: the block-pair counts' one group), 3-way mGEMM3s, and device finalize when
 * the run's finalizer (deviceFinalize2.ts / deviceFinalize3.ts `forRun`) takes it.
 */
export function runPreview(
  ctx: MetricContext, gemm: PopcountGemm, fieldComm: Communicator, numFieldLocal: number,
  options: { readonly placement: FinalizePlacement; readonly writesRecords: boolean },
): RunPreview {
  const { layout, spec } = ctx;
  const sparse = layout.maskPlane !== null;
  const shape = {
    numPlanes: layout.numPlanes, wordsPerPlane: planeWordsFor(numFieldLocal),
    vectorSums: { countPlanes: layout.countPlanes, maskPlane: layout.maskPlane },
  };
  if (spec.numWay === 2) {
    const device = DevicePairFinalizer.forRun(ctx, gemm, fieldComm, options);
    const pairTermGroups = spec.metric === 'r2' ? termGroupsR2(spec.sparse) : termGroups2(layout);
    const deviceFinalize = device === null ? null : { kind: 'pairs' as const, values: device.valueProgram, records: options.writesRecords };
    return { ...shape, pairTermGroups, triples: null, deviceFinalize };
  }
  const onDevice = DeviceTripleFinalizer.forRun(ctx, gemm, fieldComm, options) !== null;
  const { planePairs, termGroups } = tally3Plan(layout);
  return {
    ...shape,
    // Dense 3-way tallies need the block-pair counts (pipeline3.ts pairCounts).
    pairTermGroups: sparse ? null : termGroups2(layout).slice(0, 1),
    triples: { planePairs, termGroups },
    deviceFinalize: onDevice ? { kind: 'triples', sparse, records: options.writesRecords } : null,
  };
}
