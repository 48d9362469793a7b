// Entry of src/cli for tools: the option parsers every command line shares.
export { parseFiniteNumber, parseNonNegativeInteger, parseNonNegativeNumber, parsePositiveInteger } from './numberOptions.js';
