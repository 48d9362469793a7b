// Entry point of src/io (level 2): readers and writers of the packed vector input and per-rank metric files.
export {
  checkPackedVectorFile,
  packFieldValues,
  packedBytesPerVector,
  readPackedVectorSlab,
  writePackedVectorFile,
} from './packedVectorFile.js';
export {
  MAX_VECTOR_INDEX_IN_COORD,
  coordEntryBit,
  coordVectorIndex,
  encodeMetricCoord,
  findExistingOutputs,
  metricsFilePath,
  metricsRecordBytes,
} from './metricsFile.js';
export { DEFAULT_WRITE_BUFFER_BYTES, MetricsFileWriter } from './metricsFileWriter.js';
export type { MetricsFileWriterOptions } from './metricsFileWriter.js';
export {
  countMetricsRecords,
  readMetricsFileChunks,
  readMetricsFileRecords,
} from './metricsFileReader.js';
export type { MetricsRecord, MetricsRecordChunk } from './metricsFileReader.js';
