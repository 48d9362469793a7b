// Entry point of src/io (level 2): genotype readers (PLINK, VCF), prepared packed files, per-rank metrics files.
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
export { CODE_BY_ALLELE1_COPIES, CODE_MISSING, bedByteToPacked, convertBedRecord, countMissingCodes } from './genotypeCodes.js';
export type {
  BadSite, BadSitePolicy, GenotypeReadOptions, GenotypeRow, GenotypeSource, SnpInfo,
} from './genotypeSource.js';
export { openPlinkFileset, plinkPathsOf } from './plinkFileset.js';
export type { PlinkPaths } from './plinkFileset.js';
export { looksLikeVcf, openVcf } from './vcfReader.js';
export { isGzipFile, readTextLines } from './textLines.js';
export type { NumberedLine } from './textLines.js';
export { seededVectorOrder } from './vectorPermutation.js';
export {
  FIELD_CODING, SIDECAR_FORMAT, SIDECAR_VERSION, checkPreparedFile, readSidecar, sha256OfFile, sidecarPathOf,
  writeJsonFileAtomically,
} from './preparedSidecar.js';
export type { PreparedSidecar, SidecarSnps } from './preparedSidecar.js';
export { prepareGenotypes } from './prepareGenotypes.js';
export type { PrepareOptions } from './prepareGenotypes.js';
export { genotypeInputKind, openGenotypeInput } from './genotypeInput.js';
export { systemErrorText } from './systemErrorText.js';
export { isTemporaryNameFor, removeTemporaryFilesOf, temporaryPathFor } from './temporaryFiles.js';
export { writePendingTextFile, type PendingTextFile } from './pendingTextFile.js';
