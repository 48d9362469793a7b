// Entry of src/cli for tools: the option parsers every command line shares.
export { parseFiniteNumber, parseNonNegativeInteger, parseNonNegativeNumber, parsePositiveInteger } from './numberOptions.js';
// For src/api: one `run` job from JavaScript, through the command line's own checks and input handling.
export { loadRunJob, type RunResult, type RankDevice, type RunHistogram, type MemoryReport } from './engineApi.js';
export { buildRunPlan, skipsMissingCalls, type RunOptionText } from './runOptions.js';
export { checkMissingCallsAllowed, resolveRunInput, type RunInput } from './runInput.js';
export { parseBadSitePolicy } from './genotypePreparation.js';
export { runCompanions } from './runCompanions.js';
// For tools/epistasis-power: preparing a case-control fileset and the exact epistasis search, in process.
export { prepareGenotypeFile } from './genotypePreparation.js';
export { searchEpistasis, type EpistasisSearchOptions, type EpistasisSearchResult } from './epistasis/epistasisSearch.js';
// For tools/bench-relatedness: the records threshold of the PLINK front end's --king-table-filter.
export { doubleBelow } from './plink/kingCommand.js';
