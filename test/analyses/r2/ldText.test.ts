// The `.ld` table's native bulk functions (r²'s addon, src/ldText.h) against independent JS: PLINK's number text
// against io/plinkNumberText.ts's formatter on many values of every kind, each pair's r² and 3×3 table against a naive
// count of the decoded genotypes, both tally paths (AVX-512 and 64-bit popcounts), and the lines' bytes.
import { describe, expect, it } from 'vitest';
import { loadNativeR2Addon } from '../../../src/analyses/r2/native/nativeR2Band.js';
import type { LdSpanPairs } from '../../../src/analyses/r2/native/nativeLdText.js';
import { dosageR2 } from '../../../src/cli/plink/twoLocusLd.js';
import { formatPlinkNumber, plinkPowersOfTen } from '../../../src/io/plinkNumberText.js';
import { mulberry32 } from '../../../src/core/seededRandom.js';

const loaded = loadNativeR2Addon();
// Where the addon is built (x86-64 with a compiler, `npm run build`), these tests need it; elsewhere the JS path runs.
if (process.arch === 'x64' && !loaded.available) throw new Error(`on x86-64 r²'s addon must be built: ${loaded.reason}`);
const SLACK = 64;

/** Lines of `values` (and `extras`) with empty loci: what the native loop writes, or null without the addon. */
async function nativeLines(values: Float64Array, extras: Float64Array | null, minR2: number): Promise<string | null> {
  if (!loaded.available) return null;
  const numPairs = values.length;
  const out = Buffer.alloc(numPairs * 31 + SLACK);
  const { numBytes } = await loaded.addon.ldTableText({
    codes: new Uint8Array(0), snpFirst: 0, numSnps: 0, numField: 0, rowBytes: 0, pairs: new Uint32Array(2 * numPairs), numPairs,
    values, ...(extras === null ? {} : { extras }), minR2, lociBytes: new Uint8Array(SLACK), lociOffsets: new Uint32Array(2),
    powersOfTen: plinkPowersOfTen(), out,
  });
  return out.subarray(0, numBytes).toString('latin1');
}

/** The same lines by the JS formatter (plinkLdTable.ts's column layout). */
function jsLines(values: Float64Array, extras: Float64Array | null, minR2: number): string {
  let text = '';
  values.forEach((value, k) => {
    if (!(value >= minR2)) return;
    text += `${formatPlinkNumber(value).padStart(12)} ${extras === null ? '' : `${formatPlinkNumber(extras[k]).padStart(12)} `}\n`;
  });
  return text;
}

/** Values of every kind the number text meets, and its edges: half-way points, powers of ten, ±0, specials. */
function numberCases(count: number, seed: number): Float64Array {
  const random = mulberry32(seed);
  const values: number[] = [0, -0, 1, -1, NaN, Infinity, -Infinity, 5e-324, -5e-324, 2.2250738585072014e-308, Number.MAX_VALUE, -Number.MAX_VALUE,
    1e-4, 9.99995e-5, 0.000099999949, 999999.5, 999999.4999, 1e6, 123456.5, 123457.5, 0.5, 0.25, 1 / 3, 2 / 3];
  for (let e = -320; e <= 307; e++) {
    const power = Number(`1e${e}`);
    values.push(power, power * (1 + 2 ** -52), power * (1 - 2 ** -53), power * 0.9999995, power * 0.99999949999);
  }
  while (values.length < count) {
    const kind = values.length % 5;
    const e = Math.floor(random() * 60) - 40;
    if (kind === 0) values.push(random());
    else if (kind === 1) values.push(random() ** 8);
    else if (kind === 2) values.push((random() - 0.5) * 2 * 10 ** e);
    else {
      // Near a half-way point of the 6th digit: q + 0.5 at exponent e, nudged by less than and by more than PLINK's slack.
      const q = 100000 + Math.floor(random() * 900000);
      const nudge = (kind === 3 ? 1e-9 : 1e-8) * (random() < 0.5 ? -1 : 1);
      values.push((q + 0.5 + nudge) * 10 ** (e - 5));
    }
  }
  return Float64Array.from(values);
}

describe('the .ld number text (native, in bulk)', () => {
  it('prints every value as the JS formatter does: 200,000 values, specials, half-way points, powers of ten', async () => {
    const values = numberCases(200_000, 5);
    const extras = numberCases(200_000, 6).reverse();
    const native = await nativeLines(values, extras, -Infinity);
    if (native === null) return;
    // NaN never passes the filter (the R2 column), so NaNs are checked in the extra column.
    expect(native.split('\n').length).toBeGreaterThan(199_000);
    expect(native).toBe(jsLines(values, extras, -Infinity));
  });

  it('keeps the values ≥ minR2 only (NaN never), without an extra column', async () => {
    const values = numberCases(20_000, 9).map((v, k) => (k % 3 === 0 ? Math.abs(v) % 1 : v));
    for (const minR2 of [0, 0.2, 0.9999995]) {
      const native = await nativeLines(values, null, minR2);
      if (native === null) return;
      expect(native).toBe(jsLines(values, null, minR2));
    }
  });
});

/** Random packed rows (SPEC §1 codes, 10 missing): every 7th SNP monomorphic, every 11th all missing but a few. */
function randomCodes(numSnps: number, numField: number, seed: number): { codes: Uint8Array; rowBytes: number; calls: Int8Array } {
  const random = mulberry32(seed);
  const rowBytes = Math.ceil(numField / 4);
  const codes = new Uint8Array(numSnps * rowBytes);
  // calls[s·nf + f]: copies of allele 1, −1 missing.
  const calls = new Int8Array(numSnps * numField);
  for (let s = 0; s < numSnps; s++) {
    const frequency = 0.05 + 0.9 * random();
    for (let f = 0; f < numField; f++) {
      const missing = s % 11 === 5 ? f % 13 !== 0 : random() < 0.07;
      const copies = missing ? -1 : s % 7 === 3 ? 1 : (random() < frequency ? 1 : 0) + (random() < frequency ? 1 : 0);
      calls[s * numField + f] = copies;
      const code = copies < 0 ? 0b10 : [0b00, 0b01, 0b11][copies];
      codes[s * rowBytes + (f >> 2)] |= code << (2 * (f & 3));
    }
  }
  return { codes, rowBytes, calls };
}

/** The 3×3 table of SNPs a and b counted from the calls. */
function naiveTable(calls: Int8Array, numField: number, a: number, b: number): Float64Array {
  const counts = new Float64Array(9);
  for (let f = 0; f < numField; f++) {
    const x = calls[a * numField + f];
    const y = calls[b * numField + f];
    if (x >= 0 && y >= 0) counts[3 * x + y]++;
  }
  return counts;
}

describe('each pair of a span (native, in bulk)', () => {
  for (const numField of [1, 63, 64, 65, 130, 600, 1031]) {
    it(`r² lines and 3×3 tables equal a naive count of the calls, both tally paths: ${numField} samples`, async () => {
      if (!loaded.available) return;
      const numSnps = 40;
      const snpFirst = 17;
      const { codes, rowBytes, calls } = randomCodes(numSnps, numField, numField);
      const random = mulberry32(numField + 1);
      const numPairs = 500;
      const pairs = new Uint32Array(2 * numPairs);
      // Half scattered pairs, half runs of one SNP against 12 consecutive ones (the AVX-512 path's 8-column runs).
      for (let k = 0; k < numPairs; k++) {
        if (k < numPairs / 2) {
          pairs[2 * k] = snpFirst + Math.floor(random() * numSnps);
          pairs[2 * k + 1] = snpFirst + Math.floor(random() * numSnps);
        } else if (k % 12 === 0 || k === numPairs / 2) {
          pairs[2 * k] = snpFirst + Math.floor(random() * numSnps);
          pairs[2 * k + 1] = snpFirst + Math.floor(random() * (numSnps - 12));
        } else {
          pairs[2 * k] = pairs[2 * k - 2];
          pairs[2 * k + 1] = pairs[2 * k - 1] + 1;
        }
      }
      const span: LdSpanPairs = { codes, snpFirst, numSnps, numField, rowBytes, pairs, numPairs };
      // Loci of 0 to 70 bytes (the loop copies 32 at a time), for the SNPs below the span too.
      const loci = Array.from({ length: snpFirst + numSnps }, (_, s) => `<${'x'.repeat((s * 13) % 70)}${s}>`.slice(0, (s * 7) % 71));
      const lociText = Buffer.from(loci.join(''), 'latin1');
      const lociBytes = new Uint8Array(lociText.length + SLACK);
      lociBytes.set(lociText);
      const lociOffsets = new Uint32Array(loci.length + 1);
      loci.forEach((locus, s) => { lociOffsets[s + 1] = lociOffsets[s] + locus.length; });
      // Unlinked SNPs of many samples have r² ~ 1/n: a threshold that keeps some and drops others.
      const minR2 = numField >= 600 ? 0.0005 : 0.05;
      const expectedCounts = new Uint32Array(9 * numPairs);
      let expected = '';
      for (let k = 0; k < numPairs; k++) {
        const [a, b] = [pairs[2 * k], pairs[2 * k + 1]];
        const counts = naiveTable(calls, numField, a - snpFirst, b - snpFirst);
        expectedCounts.set(counts, 9 * k);
        const r2 = dosageR2(counts);
        if (r2 >= minR2) expected += `${loci[a]}${loci[b]}${formatPlinkNumber(r2).padStart(12)} \n`;
      }
      const counts = new Uint32Array(9 * numPairs);
      loaded.addon.ldTablesOfPairs(span, counts);
      expect(counts).toEqual(expectedCounts);
      for (const scalar of [false, true]) {
        const out = Buffer.alloc(numPairs * 200 + SLACK);
        const { numBytes, numLines } = await loaded.addon.ldTableText({
          ...span, minR2, lociBytes, lociOffsets, powersOfTen: plinkPowersOfTen(), out, scalar,
        });
        expect(out.subarray(0, numBytes).toString('latin1')).toBe(expected);
        expect(numLines).toBe(expected.split('\n').length - 1);
        // One sample: no SNP varies, every r² is NaN and no line passes.
        if (numField > 1) expect(numLines).toBeGreaterThan(20);
      }
    });
  }

  it('refuses pairs outside the span and an output without room', async () => {
    if (!loaded.available) return;
    const { codes, rowBytes } = randomCodes(4, 10, 3);
    const common = {
      codes, snpFirst: 2, numSnps: 4, numField: 10, rowBytes, numPairs: 1, minR2: 0, lociBytes: new Uint8Array(SLACK),
      lociOffsets: new Uint32Array(7), powersOfTen: plinkPowersOfTen(),
    };
    await expect(loaded.addon.ldTableText({ ...common, pairs: Uint32Array.of(2, 6), out: new Uint8Array(200) })).rejects.toThrow(/pair 0 lies outside the span/);
    await expect(loaded.addon.ldTableText({ ...common, pairs: Uint32Array.of(2, 5), out: new Uint8Array(40) })).rejects.toThrow(/out has 40 bytes/);
    expect(() => loaded.addon.ldTableText({ ...common, pairs: Uint32Array.of(2, 5), out: new Float64Array(9) as unknown as Uint8Array })).toThrow(/out has the wrong type/);
  });
});
