// Option parsers of tools/bench-gpu's own list options.
import { UserError } from '../../src/core/errors.js';
import type { U8GemmStaging } from '../../src/mgemm/index.js';
import { listOf, parseFiniteNumber } from './cliOptions.js';

/** An item of `--e2e-thresholds`: `none` or a number. */
export function parseThresholdOrNone(option: string, text: string): number | null {
  return text === 'none' ? null : parseFiniteNumber(option, text);
}

/** An item of `--stagings`: kStep[/flag…]; flags other than p and 256 are ignored (older sweeps named more). */
export function parseStaging(option: string, text: string): U8GemmStaging {
  const [kStep, ...flags] = text.split('/');
  const kStepBytes = ([32, 64, 128] as const).find((bytes) => String(bytes) === kStep);
  if (kStepBytes === undefined) throw new UserError(`${option} items start with a K step of 32, 64 or 128, got "${text}"`);
  return { kStepBytes, prefetch: flags.includes('p'), tileCols: flags.includes('256') ? 256 : 128 };
}

export function parseDenseSparsePair(option: string, text: string): readonly [number, number] {
  const values = listOf(parseFiniteNumber)(option, text);
  if (values.length !== 2) throw new UserError(`${option} takes two comma-separated values (dense,sparse), got "${text}"`);
  return [values[0], values[1]];
}
