// CoMet's Custom Correlation Coefficient (SPEC §3): both bits of a field count, 2-way and 3-way.
import { cometAnalysis } from '../comet/index.js';

export const analysis = cometAnalysis('ccc', 'Custom Correlation Coefficient (CoMet CCC, SPEC §3), 2-way and 3-way');
