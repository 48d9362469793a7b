// Entry of src/analyses (level 4): the analysis interface, how analyses are found (each built-in one loaded on demand),
// and the shared pieces analyses are made of. A built-in analysis's own pieces come from its folder's index.ts
// (analyses/epistasis, king, r2, distance, grm, comet: modules of their own in the level table).
export type * from './analysis.js';
export type * from './windowBand.js';
export { pairCountGroupsOf } from './analysis.js';
export {
  nativeRecordSelectionOf, tupleRecordSelectionOf, type NativeRecordSelection, type RecordSelectingSink, type SelectionOptions, type TupleRecordSelection,
} from './tupleRecordSelection.js';
export { nativeAddonLoader, type NativeAddonStatus, type NativeBandBlocks } from './nativeAddons.js';
export {
  ANALYSIS_NAMES, analysesWithResult, builtInFinalizesPairsOnDevice, builtInPlaneLayout, loadAnalysis, loadBuiltInAnalysis, type AnalysisRef,
} from './registry.js';
export { planeBitsOfCodes } from './planeBits.js';
export { finalizePairCountRows, pairValueRowsOf, type PairValueRows, type PairValueSink } from './pairCountRows.js';
export type { NativePairCountKind } from './nativePairCounts.js';
export { float32BitsAtMost, ProgramDevicePairs, type PairValues } from './devicePairs.js';
export { ProgramDeviceTriples, tripleThresholdBits, type TripleValues } from './deviceTriples.js';
export { ProgramDeviceQuads, quadRecordWords, type QuadValues } from './deviceQuads.js';
