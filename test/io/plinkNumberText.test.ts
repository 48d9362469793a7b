// Numbers as PLINK prints them in text matrices: 6 significant digits, fixed notation from 1e-4 to below 999999.5,
// exponential outside it, trailing zeros dropped, the 6th digit rounded half to even (values within 5e-9 of a unit of
// it from half-way count as half-way). Expected strings are worked out by hand from those rules; the r² matrix test
// (test/cli/r2Matrix.test.ts) compares millions of them with plink1.9's own text output.
import { describe, expect, it } from 'vitest';
import { formatPlinkNumber } from '../../src/io/index.js';

const CASES: readonly [number, string][] = [
  [0, '0'], [1, '1'], [NaN, 'nan'], [Infinity, 'inf'], [-0.25, '-0.25'],
  [6 / 70, '0.0857143'], [9 / 14, '0.642857'], [0.04, '0.04'], [0.5, '0.5'], [12.5, '12.5'],
  [1e-5, '1e-05'], [1.5e-5, '1.5e-05'], [2.5e-7, '2.5e-07'], [1e-300, '1e-300'], [123.456e-120, '1.23456e-118'],
  [0.000123456789, '0.000123457'], [0.0001, '0.0001'], [9.99999e-5, '9.99999e-05'], [9.999996e-5, '0.0001'],
  [123456.5, '123456'], [123457.5, '123458'], [999999.4, '999999'], [999999.5, '1e+06'], [1234567, '1.23457e+06'],
  // Half-way in decimal, not in binary: rounded to even by the slack (%g would round 0.1234575 by its binary value).
  [0.1234565, '0.123456'], [0.1234575, '0.123458'], [0.9765625e-3, '0.000976562'],
];

describe('PLINK number text', () => {
  for (const [value, text] of CASES) {
    it(`${value} → ${text}`, () => {
      expect(formatPlinkNumber(value)).toBe(text);
    });
  }
});
