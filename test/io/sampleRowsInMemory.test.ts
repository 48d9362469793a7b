// Sample-major rows in memory (`run --individuals`): the transposition into shared memory on 1, 2 and 5 threads equals
// the file transposition byte for byte and lists each sample's missing calls as a naive scan of the codes does; a
// fileset's rows in memory (counted beforehand, or gathered first) equal `prepare --individuals`'s file and sidecar; a
// truncated .bed fails them with the reader's one-line error; transposition workers started ahead give the same rows; the sample-missing file reads back the lists and counts
// each pair's SNPs both called as a naive count does, and refuses a file that does not fit its counts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import {
  autosomesOf, openPlinkFileset, plinkPathsOf, prepareGenotypes, readSidecar, SAMPLE_ROWS_FAILED, SAMPLE_ROWS_READY, SampleMissingFile,
  sampleMissingFileBytes, sidecarPathOf, startSampleRowsInMemory, startTransposeWorkersAhead, transposeToSampleMajor, type GenotypeSource,
} from '../../src/io/index.js';
import { ChunkWriterPool } from '../../src/io/sampleMajorChunks.js';
import { SampleMajorWriter } from '../../src/io/sampleMajor.js';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-rows-in-memory-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Code of field f of row r of packed rows of `bytesPerRow` bytes (SPEC §1). */
function codeAt(bytes: Uint8Array, bytesPerRow: number, r: number, f: number): number {
  return (bytes[r * bytesPerRow + (f >> 2)] >> (2 * (f & 3))) & 3;
}

/** Each sample's missing SNPs (code 10), read code by code. */
function naiveMissing(sampleRows: Uint8Array, numSample: number, numSnp: number): number[][] {
  const bytesPerSample = Math.ceil(numSnp / 4);
  return Array.from({ length: numSample }, (_, s) => Array.from({ length: numSnp }, (_, v) => v).filter((v) => codeAt(sampleRows, bytesPerSample, s, v) === 2));
}

describe('rows in memory', () => {
  it('transposes as the file transposition does on 1, 2 and 5 threads, and lists each sample\'s missing calls', async () => {
    // 1,001 samples (251 bytes per SNP row: 4 blocks of 64, a ragged last byte), 37 SNPs in chunks of 12.
    const [numSnp, numSample] = [37, 1001];
    const bytesPerSnp = Math.ceil(numSample / 4);
    const random = mulberry32(21);
    const rows = new Uint8Array(numSnp * bytesPerSnp);
    for (let v = 0; v < numSnp; v++) {
      for (let s = 0; s < numSample; s++) rows[v * bytesPerSnp + (s >> 2)] |= Math.floor(random() * 4) << (2 * (s & 3));
    }
    const snpMajor = join(workDir, 'wide.packed');
    writeFileSync(snpMajor, rows);
    const fromFile = join(workDir, 'wide.samples');
    await transposeToSampleMajor(snpMajor, fromFile, fromFile, { numSnp, numSample, snpsPerChunk: 12 });
    const expected = new Uint8Array(readFileSync(fromFile));
    const expectedMissing = naiveMissing(expected, numSample, numSnp);
    for (const threads of [1, 2, 5]) {
      const memory = new Uint8Array(new SharedArrayBuffer(expected.length));
      const writer = await SampleMajorWriter.create({ kind: 'memory', rows: memory }, { numSnp, numSample, snpsPerChunk: 12, threads });
      try {
        // Rows in uneven pieces: the writer gathers its own chunks.
        for (let first = 0; first < numSnp; first += 5) await writer.addRows(rows.subarray(first * bytesPerSnp, Math.min(numSnp, first + 5) * bytesPerSnp));
        await writer.finishRows();
        expect(Buffer.from(memory).equals(Buffer.from(expected)), `${threads} threads`).toBe(true);
        const lists = await writer.missingCalls();
        let at = 0;
        const got = Array.from(lists.counts, (count) => Array.from(lists.snps.subarray(at, (at += count))));
        expect(got, `${threads} threads`).toEqual(expectedMissing);
      } finally {
        await writer.close();
      }
    }
  });

  const prefix = join(workDir, 'pedigree');
  writePedigreeFileset(prefix, { numFamilies: 2, numUnrelated: 5, numSnp: 301, missingRate: 0.05, seed: 3 });

  for (const counted of [true, false]) {
    it(`a fileset's autosomes (${counted ? 'counted beforehand' : 'gathered first'}): prepare --individuals's file and sidecar`, async () => {
      const prepared = join(workDir, `prepared-${counted}.packed`);
      await prepareGenotypes(autosomesOf(await openPlinkFileset(plinkPathsOf(prefix)!)), prepared, { permuteSeed: null, vectors: 'samples' });
      const opened = autosomesOf(await openPlinkFileset(plinkPathsOf(prefix)!));
      const source = counted ? opened : { ...opened, numSnpKnown: null, snps: null };
      const rows = await startSampleRowsInMemory(source, {});
      const { sidecar, missingCalls } = await rows.done;
      expect(Atomics.load(rows.state, 0)).toBe(SAMPLE_ROWS_READY);
      const file = new Uint8Array(readFileSync(prepared));
      expect(Buffer.from(rows.rows).equals(Buffer.from(file))).toBe(true);
      expect(sidecar).toEqual(readSidecar(sidecarPathOf(prepared)));
      expect([rows.numSample, rows.numSnp]).toEqual([sidecar.numVector, sidecar.numField]);
      const expectedMissing = naiveMissing(file, rows.numSample, rows.numSnp);
      expect(Array.from(missingCalls.counts)).toEqual(expectedMissing.map((list) => list.length));
      expect(Array.from(missingCalls.snps)).toEqual(expectedMissing.flat());
    });
  }

  it('transposition workers started ahead: the same rows and missing calls; started with another thread count, cancelled', async () => {
    // Above the 4 MiB from which .bed records are transposed on one worker per core: 2,001 samples × 8,400 SNPs.
    const wide = join(workDir, 'wide-bed');
    const [numSample, numSnp] = [2001, 8400];
    const bytesPerSnp = Math.ceil(numSample / 4);
    const random = mulberry32(5);
    const bed = new Uint8Array(3 + numSnp * bytesPerSnp);
    bed.set([0x6c, 0x1b, 0x01]);
    for (let b = 3; b < bed.length; b++) bed[b] = Math.floor(random() * 256);
    // The last byte of each record holds one sample: its pad fields are zero.
    for (let v = 0; v < numSnp; v++) bed[3 + v * bytesPerSnp + bytesPerSnp - 1] &= 3;
    writeFileSync(`${wide}.bed`, bed);
    writeFileSync(`${wide}.fam`, Array.from({ length: numSample }, (_, s) => `f${s} i${s} 0 0 0 -9\n`).join(''));
    writeFileSync(`${wide}.bim`, Array.from({ length: numSnp }, (_, v) => `1\trs${v}\t0\t${v + 1}\tA\tC\n`).join(''));
    const open = async (): Promise<GenotypeSource> => openPlinkFileset(plinkPathsOf(wide)!);
    const bytesOf = (words: Uint32Array): Buffer => Buffer.from(words.buffer, words.byteOffset, words.byteLength);
    const reference = await startSampleRowsInMemory(await open(), {});
    const expected = await reference.done;
    const started = startTransposeWorkersAhead(wide);
    expect(started?.numThreads ?? 1).toBe(Math.min(16, availableParallelism()));
    const starts = [started, ChunkWriterPool.start(3), ChunkWriterPool.start(1)];
    for (const startedWorkers of starts) {
      const rows = await startSampleRowsInMemory(await open(), { startedWorkers });
      const { sidecar, missingCalls } = await rows.done;
      expect(Buffer.from(rows.rows).equals(Buffer.from(reference.rows)), `${startedWorkers?.numThreads}`).toBe(true);
      expect(sidecar).toEqual(expected.sidecar);
      // Compared as bytes: millions of entries (a quarter of the random codes are missing).
      expect(bytesOf(missingCalls.counts).equals(bytesOf(expected.missingCalls.counts))).toBe(true);
      expect(bytesOf(missingCalls.snps).equals(bytesOf(expected.missingCalls.snps))).toBe(true);
    }
    const expectedMissing = naiveMissing(reference.rows, numSample, numSnp);
    expect(bytesOf(expected.missingCalls.counts).equals(bytesOf(Uint32Array.from(expectedMissing, (list) => list.length)))).toBe(true);
    // A start that is not the rows' own was cancelled: completing it now fails; the used one was completed.
    for (const startedWorkers of starts.slice(1)) {
      if (startedWorkers?.numThreads === started?.numThreads) continue;
      await expect(startedWorkers!.complete(reference.rows as never)).rejects.toThrow(/complete\(\) after cancel\(\)/);
    }
    if (started !== null) await expect(started.complete(reference.rows as never)).rejects.toThrow(/complete\(\) after complete\(\)/);
    // A fileset below 4 MiB is transposed on the main thread: no workers ahead.
    expect(startTransposeWorkersAhead(prefix)).toBe(null);
  });

  it('a reader failing after some rows: done rejects with its error, the state says FAILED; gathered first, it throws', async () => {
    const opened = await openPlinkFileset(plinkPathsOf(prefix)!);
    const failing = {
      ...opened,
      async* rows() {
        let numRows = 0;
        for await (const row of opened.rows()) {
          if (++numRows === 100) throw new UserError(`${opened.path}: SNP record 100 is broken`);
          yield row;
        }
      },
    };
    const rows = await startSampleRowsInMemory(failing, {});
    const failure = await rows.done.then(() => null, (error: unknown) => error);
    expect(failure).toEqual(new UserError(`${opened.path}: SNP record 100 is broken`));
    expect(Atomics.load(rows.state, 0)).toBe(SAMPLE_ROWS_FAILED);
    await expect(startSampleRowsInMemory({ ...failing, numSnpKnown: null, snps: null }, {})).rejects.toThrow(/SNP record 100 is broken/);
  });
});

describe('sample-missing file', () => {
  const numSnp = 50;
  const lists = [[0, 7, 49], [], [7, 8, 9, 10], [49], [3, 7, 49]];
  const counts = Uint32Array.from(lists, (list) => list.length);
  const path = join(workDir, 'lists.sample-missing.bin');
  writeFileSync(path, sampleMissingFileBytes({ counts, snps: Uint32Array.from(lists.flat()) }, numSnp));

  it('reads each sample\'s list back and counts the SNPs both samples called as a naive count does', () => {
    const file = new SampleMissingFile(path, lists.length, numSnp);
    try {
      lists.forEach((list, s) => expect(Array.from(file.missingOf(s))).toEqual(list));
      for (let a = 0; a < lists.length; a++) {
        for (let b = 0; b < lists.length; b++) {
          const naive = Array.from({ length: numSnp }, (_, v) => v).filter((v) => !lists[a].includes(v) && !lists[b].includes(v)).length;
          expect(file.calledByBoth(a, b), `${a} ${b}`).toBe(naive);
        }
      }
    } finally {
      file.close();
    }
  });

  it('refuses another sample count, a short file and a list out of order, naming the file', () => {
    expect(() => new SampleMissingFile(path, 4, numSnp)).toThrow(new UserError(`${path}: the missing calls of 5 samples over 50 SNPs, not 4 over 50`));
    const short = join(workDir, 'short.sample-missing.bin');
    writeFileSync(short, readFileSync(path).subarray(0, 40));
    expect(() => new SampleMissingFile(short, lists.length, numSnp)).toThrow(/short\.sample-missing\.bin: 40 bytes, but its counts need 72/);
    const unordered = join(workDir, 'unordered.sample-missing.bin');
    writeFileSync(unordered, sampleMissingFileBytes({ counts: Uint32Array.of(2), snps: Uint32Array.of(9, 3) }, numSnp));
    const file = new SampleMissingFile(unordered, 1, numSnp);
    try {
      expect(() => file.missingOf(0)).toThrow(/unordered\.sample-missing\.bin: sample 0's missing calls are not increasing/);
    } finally {
      file.close();
    }
  });
});
