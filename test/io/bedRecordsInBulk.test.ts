// .bed records converted in bulk into SNP vectors (io/genotypeCodes.ts convertBedRecordsInPlace, io/preparedInMemory.ts
// prepareBedRecordsInMemory, prepare's bulk path): the same bytes, missing calls and sidecar as the row-at-a-time readers
// (convertBedRecord per record; prepareGenotypesInMemory through the source's rows), for sample counts that are and are
// not multiples of 4 and 16, garbage in the pad bits, missing calls, several chromosomes, and --chr / --extract / --keep;
// and samples ordered [controls | cases] (phenotypes shuffled with missing ones, or already in order).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/seededRandom.js';
import {
  convertBedRecord, convertBedRecordsInPlace, countMissingCodes, prepareBedRecordsInMemory, prepareGenotypes, prepareGenotypesInMemory,
  readSidecar, type GenotypeSelection,
} from '../../src/io/index.js';
import { openSelectedGenotypes } from '../../src/cli/genotypePreparation.js';
import { parseSelection, type SelectionOptionText } from '../../src/cli/genotypeInputOptions.js';
import { writePlinkFileset, type DosageMatrix } from './genotypeFixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-bed-bulk-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('convertBedRecordsInPlace', () => {
  it.each([1, 3, 4, 5, 15, 16, 17, 33, 64, 101])('equals convertBedRecord and countMissingCodes of each record (%i samples, garbage pads)', (numSample) => {
    const random = mulberry32(numSample);
    const bytesPerRecord = Math.ceil(numSample / 4);
    const numRecord = 37;
    // Every byte random, pad bits included: the conversion must clear them and not count them.
    const records = Uint8Array.from({ length: numRecord * bytesPerRecord }, () => Math.floor(random() * 256));
    const expected = new Uint8Array(records.length);
    let expectedMissing = 0;
    const one = new Uint8Array(bytesPerRecord);
    for (let r = 0; r < numRecord; r++) {
      convertBedRecord(records.subarray(r * bytesPerRecord, (r + 1) * bytesPerRecord), numSample, one);
      expected.set(one, r * bytesPerRecord);
      expectedMissing += countMissingCodes(one);
    }
    // Aligned, and at an odd offset (the byte path).
    for (const offset of [0, 1]) {
      const buffer = new Uint8Array(records.length + 8);
      const view = buffer.subarray(offset, offset + records.length);
      view.set(records);
      expect(convertBedRecordsInPlace(view, numSample)).toBe(expectedMissing);
      expect(view).toEqual(expected);
    }
  });
});

/** A fileset of random dosages (5 % missing) over 3 chromosomes, SNP ids rs<s>, samples fam<i> ind<i>. */
function fileset(name: string, numSnp: number, numSample: number): string {
  const random = mulberry32(numSnp * 7 + numSample);
  const dosages: DosageMatrix = Array.from({ length: numSnp }, () => Array.from({ length: numSample }, () => {
    const x = random();
    return x < 0.05 ? null : Math.floor(x * 3);
  }));
  const prefix = join(workDir, name);
  writePlinkFileset(prefix, dosages, numSample);
  const perChromosome = Math.ceil(numSnp / 3);
  writeFileSync(`${prefix}.bim`, dosages.map((_, s) => `${1 + Math.floor(s / perChromosome)}\trs${s}\t0\t${1000 + 17 * s}\tG\tA\n`).join(''));
  return prefix;
}

const extractPath = join(workDir, 'extract.txt');
const keepPath = join(workDir, 'keep.txt');
writeFileSync(extractPath, Array.from({ length: 200 }, (_, s) => (s % 3 === 0 ? `rs${s}\n` : '')).join(''));
writeFileSync(keepPath, Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? `fam${i} ind${i}\n` : '')).join(''));

const selections: readonly { readonly name: string; readonly text: SelectionOptionText; readonly bulk: boolean }[] = [
  { name: 'everything', text: {}, bulk: true },
  { name: '--chr 1,3', text: { chr: '1,3' }, bulk: true },
  { name: '--extract', text: { extract: extractPath }, bulk: true },
  { name: '--chr 2 --from-bp --to-bp', text: { chr: '2', fromBp: '1500', toBp: '2500' }, bulk: true },
  { name: '--keep (samples removed: rows one at a time)', text: { keep: keepPath }, bulk: false },
];

describe.each([
  { numSnp: 150, numSample: 37 },
  { numSnp: 200, numSample: 64 },
  { numSnp: 90, numSample: 30 },
])('.bed of $numSnp SNPs × $numSample samples read in bulk', ({ numSnp, numSample }) => {
  const prefix = fileset(`d${numSnp}x${numSample}`, numSnp, numSample);
  it.each(selections)('$name: the same packed vectors and sidecar as the rows one at a time', async ({ text, bulk }) => {
    const selection: GenotypeSelection = await parseSelection(text);
    const options = { onBadSite: 'error', selection, caseControl: null } as const;
    const viaRows = await openSelectedGenotypes(prefix, options);
    const expected = await prepareGenotypesInMemory(viaRows.source, viaRows.records);
    expect(expected.sidecar.numMissingCalls).toBeGreaterThan(0);

    const inBulk = await openSelectedGenotypes(prefix, options);
    const got = prepareBedRecordsInMemory(inBulk.source, inBulk.records);
    if (!bulk) {
      expect(got).toBeNull();
    } else {
      expect(got).not.toBeNull();
      expect(got?.packed).toEqual(expected.packed);
      expect(got?.sidecar).toEqual(expected.sidecar);
    }

    // prepare's file: the bulk path where it applies, the same bytes and sidecar either way.
    const filed = await openSelectedGenotypes(prefix, options);
    const packedPath = join(workDir, `p${numSnp}x${numSample}-${Object.keys(text).join('-')}`);
    const sidecar = await prepareGenotypes(filed.source, packedPath, { ...filed.records, permuteSeed: null });
    expect(new Uint8Array(readFileSync(packedPath))).toEqual(expected.packed);
    expect(sidecar).toEqual(expected.sidecar);
    expect(readSidecar(`${packedPath}.json`)).toEqual(expected.sidecar);
    expect(JSON.parse(readFileSync(`${packedPath}.json`, 'utf8'))).toEqual(expected.sidecar);
    rmSync(packedPath);
    rmSync(`${packedPath}.json`);
  });

  it.each(['shuffled', 'in order'])('case-control, classes %s: the same class-ordered vectors and sidecar in bulk as the rows one at a time', async (layout) => {
    // .fam column 6: controls and cases (and, shuffled, missing phenotypes) in the file's order, or controls first.
    const random = mulberry32(numSample);
    const famLines = readFileSync(`${prefix}.fam`, 'utf8').trim().split('\n').map((line, i) => {
      const phenotype = layout === 'in order' ? (i < numSample / 2 ? '1' : '2') : ['1', '2', '-9'][Math.floor(random() * 2.2)];
      return [...line.split(/\s+/).slice(0, 5), phenotype].join(' ');
    });
    const casePrefix = `${prefix}-cc-${layout === 'in order' ? 'ordered' : 'shuffled'}`;
    writeFileSync(`${casePrefix}.fam`, `${famLines.join('\n')}\n`);
    writeFileSync(`${casePrefix}.bim`, readFileSync(`${prefix}.bim`));
    writeFileSync(`${casePrefix}.bed`, readFileSync(`${prefix}.bed`));
    for (const text of [{}, { chr: '1,3' }]) {
      const options = { onBadSite: 'error', selection: await parseSelection(text), caseControl: { pheno: null, phenoName: null } } as const;
      const viaRows = await openSelectedGenotypes(casePrefix, options);
      const expected = await prepareGenotypesInMemory(viaRows.source, viaRows.records);
      expect(expected.sidecar.numMissingCalls).toBeGreaterThan(0);
      const inBulk = await openSelectedGenotypes(casePrefix, options);
      const got = prepareBedRecordsInMemory(inBulk.source, inBulk.records);
      expect(got).not.toBeNull();
      expect(got?.packed).toEqual(expected.packed);
      expect(got?.sidecar).toEqual(expected.sidecar);
    }
  });
});

describe('convertBedRecord and countMissingCodes on views at any offset', () => {
  it.each([1, 3, 4, 5, 16, 17, 33, 101])('equal a call-by-call reference at offsets 0 to 3 (%i samples)', (numSample) => {
    const random = mulberry32(1000 + numSample);
    const numBytes = Math.ceil(numSample / 4);
    const record = Uint8Array.from({ length: numBytes }, () => Math.floor(random() * 256));
    // PLINK codes 00 hom A1, 01 missing, 10 het, 11 hom A2 → SPEC 11, 10, 01, 00; pad calls 00.
    const expected = new Uint8Array(numBytes);
    let expectedMissing = 0;
    for (let s = 0; s < numSample; s++) {
      const plinkCode = (record[s >> 2] >>> (2 * (s & 3))) & 3;
      expected[s >> 2] |= (3 - plinkCode) << (2 * (s & 3));
      if (plinkCode === 1) expectedMissing++;
    }
    for (const offset of [0, 1, 2, 3]) {
      const input = new Uint8Array(numBytes + 8).subarray(offset, offset + numBytes);
      input.set(record);
      const out = new Uint8Array(numBytes + 8).subarray(offset, offset + numBytes);
      convertBedRecord(input, numSample, out);
      expect(out).toEqual(expected);
      expect(countMissingCodes(out)).toBe(expectedMissing);
    }
  });
});
