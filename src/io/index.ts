// Entry point of src/io (level 2): genotype readers (PLINK, VCF), prepared packed files, per-rank metrics files.
export {
  checkPackedVectorFile,
  packFieldValues,
  readExactly,
  packedBytesPerVector,
  packedVectorSlabOf, readPackedVectorSlab,
  writePackedVectorFile,
} from './packedVectorFile.js';
export { checkRealVectorFile, readRealVectorRows, realValueBytes, type RealRowTarget } from './realVectorFile.js';
export {
  LITTLE_ENDIAN_HOST,
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
export { CODE_BY_ALLELE1_COPIES, CODE_MISSING, bedByteToPacked, convertBedRecord, convertBedRecordsInPlace, countMissingCodes } from './genotypeCodes.js';
export type {
  BadSite, BadSitePolicy, BedRecords, GenotypeReadOptions, GenotypeRow, GenotypeSource, SnpInfo,
} from './genotypeSource.js';
export { readBedRecordsInto } from './bedRecordReads.js';
export { openPlinkFileset, plinkPathsOf } from './plinkFileset.js';
export type { PlinkPaths } from './plinkFileset.js';
export { looksLikeVcf, openVcf } from './vcfReader.js';
export { MAX_LINE_BYTES, isGzipFile, readLineBatches, readTextLines } from './textLines.js';
export type { LineReadOptions, NumberedLine } from './textLines.js';
export { seededVectorOrder } from './vectorPermutation.js';
export {
  FIELD_CODING, MAX_SIDECAR_BYTES, SIDECAR_FORMAT, SIDECAR_VERSION, checkPreparedFile, readSidecar, sha256OfFile,
  sidecarPathOf, stageJsonFile, stageSidecarFile, writeJsonFileAtomically,
} from './preparedSidecar.js';
export type { PreparedSidecar, SidecarSnps } from './preparedSidecar.js';
export { vectorsAreSamples } from './preparedSidecar.js';
export { startPreparedFileCheck, type PreparedFileCheck } from './preparedFileCheck.js';
export { CHUNK_BYTES, autosomesOf, snpsPerChunkOf, transposeToSampleMajor } from './sampleMajor.js';
export type { TransposeSizes } from './sampleMajor.js';
export { prepareGenotypes } from './prepareGenotypes.js';
export { preparedBytesOf, prepareBedRecordsInMemory, prepareGenotypesInMemory, type PreparedInMemory } from './preparedInMemory.js';
export { SAMPLE_ROWS_FAILED, SAMPLE_ROWS_PENDING, SAMPLE_ROWS_READY, startSampleRowsInMemory, startTransposeWorkersAhead } from './sampleRowsInMemory.js';
export type { SampleRowsInMemory, SampleRowsOptions, SampleRowsResult } from './sampleRowsInMemory.js';
export type { ChunkWriterPoolStart, MissingCallLists } from './sampleMajorChunks.js';
export { SampleMissingFile, sampleMissingFileBytes } from './sampleMissingFile.js';
export type { PrepareOptions } from './prepareGenotypes.js';
export { genotypeInputKind, openGenotypeInput } from './genotypeInput.js';
export { canonicalChromosome, parseChromosomeList } from './chromosomeCodes.js';
export { readSampleIdFile, readVariantIdFile, sampleListNames } from './selectionLists.js';
export type { SampleIdList, SampleName } from './selectionLists.js';
export { SELECT_ALL, selectGenotypes, selectsEverything } from './genotypeSelection.js';
export type { GenotypeSelection, SelectedSource, SelectionRecord } from './genotypeSelection.js';
export { systemErrorText } from './systemErrorText.js';
export {
  isTemporaryNameFor, removeLeftoverTemporaries, removeLeftoverTemporariesOfFiles, removeTemporaryFilesOf, temporaryPathFor,
} from './temporaryFiles.js';
export type { TemporaryRemovalOptions } from './temporaryFiles.js';
export { commitStagedFiles, discardStagedFiles, stageFile, writeFileAtomically } from './stagedFiles.js';
export type { StagedFile } from './stagedFiles.js';
export { fileIdentity, inputSameAs, readBoundedTextFile, refuseOutputOverInput } from './sideFiles.js';
export type { FileIdentity } from './sideFiles.js';
export { openForReading } from './openForReading.js';
export {
  MATRIX_FORMATS, MATRIX_SHAPES, PLINK_NAN_FLOAT32_BITS, PLINK_NAN_FLOAT64_HIGH_BITS, matrixElementBytes, matrixElementCount,
  matrixElementIndex, matrixFilePath, matrixRowLength,
} from './matrixLayout.js';
export type { MatrixFormat, MatrixGeometry, MatrixShape } from './matrixLayout.js';
export {
  MatrixFileWriter, checkMatrixDiskSpace, createMatrixFile, stageMatrixFile, discardMatrixFile, matrixDiskBytes, matrixTemporaryPath,
  temporaryNameParts,
} from './matrixFile.js';
export type { MatrixFileSpec } from './matrixFile.js';
export { formatPlinkNumber, MAX_NUMBER_TEXT_BYTES, plinkPowersOfTen, writePlinkNumber } from './plinkNumberText.js';
export { DEFAULT_ROWS_PER_CHUNK, RowSorter, sortRowsInMemory } from './rowSort.js';
export type { RowSortOptions } from './rowSort.js';
export { TextOutput, isGzipName } from './textOutput.js';
export type { TextFileOptions } from './textOutput.js';
export { ldLocusText, ldTableHeader, ldTableLine, ldTableLineOfLoci, plinkChromosomeText, plinkSnpColumnWidth } from './plinkLdTable.js';
export type { LdExtraColumn, LdLocus } from './plinkLdTable.js';
export { distanceMatrixChunks } from './plinkDistanceMatrix.js';
export type { DistanceMatrixLayout } from './plinkDistanceMatrix.js';
export {
  CLASS_CASE, CLASS_CONTROL, CLASS_MISSING, orderByClass, phenotypeClassOf, readFamPhenotypes, readPhenotypeFile,
  type CaseControlRecord, type SampleClasses,
} from './phenotypes.js';
