// Strict parsing of numeric option values, each failure a one-line UserError naming the option.
import { UserError } from '../core/errors.js';

const INTEGER_TEXT = /^\d+$/;
const DECIMAL_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** An integer ≥ 1 written in plain digits (no sign, exponent or fraction). */
export function parsePositiveInteger(option: string, text: string): number {
  const value = parseIntegerText(option, text, 'a positive integer');
  if (value < 1) throw new UserError(`${option} must be a positive integer, got "${text}"`);
  return value;
}

/** An integer ≥ 0 written in plain digits. */
export function parseNonNegativeInteger(option: string, text: string): number {
  return parseIntegerText(option, text, 'a non-negative integer');
}

/** A finite decimal number (e.g. `0.5`, `-1`, `2e-3`). */
export function parseFiniteNumber(option: string, text: string): number {
  const value = DECIMAL_TEXT.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) throw new UserError(`${option} must be a number, got "${text}"`);
  return value;
}

/** A finite decimal number ≥ 0. */
export function parseNonNegativeNumber(option: string, text: string): number {
  const value = parseFiniteNumber(option, text);
  if (value < 0) throw new UserError(`${option} must not be negative, got "${text}"`);
  return value;
}

function parseIntegerText(option: string, text: string, what: string): number {
  const trimmed = text.trim();
  const value = INTEGER_TEXT.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new UserError(`${option} must be ${what}, got "${text}"`);
  return value;
}

/**
 * A count in [least, most] (plain digits): options that size what a command holds in memory (`--bins`, `--top`, `-k`)
 * are bounded, so that a large value is a one-line refusal rather than gigabytes.
 */
export function parseCount(option: string, text: string, bounds: { readonly least?: number; readonly most: number }): number {
  const least = bounds.least ?? 0;
  const value = parseIntegerText(option, text, `an integer from ${least} to ${bounds.most}`);
  if (value < least || value > bounds.most) throw new UserError(`${option} must be an integer from ${least} to ${bounds.most}, got "${text}"`);
  return value;
}
