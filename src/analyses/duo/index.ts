// CoMet's DUO metric (SPEC §3): the low bit of a field counts, 2-way and 3-way.
import { cometAnalysis } from '../comet/index.js';

export const analysis = cometAnalysis('duo', 'DUO (CoMet, SPEC §3: the low bit of each field), 2-way and 3-way');
