// CoMet's 2-way values on the device: its value program (cometPairProgram.ts) with the run's constants and the
// per-vector factors computed with the host path's own double operations.
import type { PairValues } from '../index.js';
import { cometPairConstants, cometPairProgram, cometPairVectorWords } from './cometPairProgram.js';
import type { CometSettings } from './cometSettings.js';
import { termGroups2 } from './cometTallies.js';

/** The run's pair values on the device, or null when its constants are outside the device library's range. */
export function cometPairValues(run: CometSettings): PairValues | null {
  const k = run.constants;
  const constants = cometPairConstants(k, run.numField);
  if (constants === null) return null;
  return {
    program: cometPairProgram(run.sparse), constants, termGroups: termGroups2(run.layout),
    wordsOf: (block) => cometPairVectorWords(k, run.numField, run.sparse, block.planes.numVectors, block.numVectorReal, block.sums, block.counts),
  };
}
