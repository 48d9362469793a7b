// Entry of CoMet's 2-bit metrics (CCC and DUO, SPEC §3): the analysis factory, and pieces benchmarks and tests use.
export { cometAnalysis } from './cometAnalysis.js';
export { cometPlaneLayout, termGroups2, tally3Plan } from './cometTallies.js';
export { cometPairConstants, cometPairProgram, cometPairVectorWords } from './cometPairProgram.js';
