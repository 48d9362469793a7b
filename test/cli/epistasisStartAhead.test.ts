// The epistasis command's start-up paths: a fileset prepared into shared memory (cli/runInput.ts inMemoryMaxBytes)
// holds the same bytes and sidecar as the temporary packed file, and the search over it finds the same top-N, scores,
// tables and checksum — on ragged sizes (samples not a multiple of 4 or 32) with missing calls and phenotypes; kernel
// threads started before the job (engine startRunKernels, RunHooks.startedKernels) give the same results as threads
// the run starts itself, whether the run takes them or, started with other threads, cancels them; a thread count past
// the limit is refused before any thread starts; a command whose input fails after its threads started exits at once
// with the input's one-line error.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchEpistasis, type EpistasisSearchOptions } from '../../src/cli/epistasis/epistasisSearch.js';
import { resolveRunInput, type RunInput } from '../../src/cli/runInput.js';
import { startRunKernels } from '../../src/engine/index.js';
import { SELECT_ALL } from '../../src/io/index.js';
import { UserError } from '../../src/core/errors.js';
import { writeCaseControlFileset, decomposition } from '../analyses/epistasis/epistasisFiles.js';
import { naiveEpistasis, randomCaseControlData } from '../analyses/epistasis/naiveEpistasis.js';
import { expectTopOf } from '../analyses/epistasis/expectTop.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'epistasis-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 17 SNPs × 51 samples (47 with a phenotype), 3% missing calls.
const data = randomCaseControlData(17, 51, 13, 0.03);
const prefix = join(dir, 'ragged');
writeCaseControlFileset(prefix, data);

function resolved(inMemoryMaxBytes: number): Promise<RunInput> {
  return resolveRunInput(prefix, {
    onBadSite: 'error', allowConversion: true, selection: SELECT_ALL, removeOnInterrupt: false,
    caseControl: { pheno: null, phenoName: null }, inMemoryMaxBytes,
  });
}

function searchOptions(input: RunInput, extra: Partial<EpistasisSearchOptions> = {}): EpistasisSearchOptions {
  if (input.sidecar === null) throw new Error('a converted fileset without its sidecar');
  return {
    packedPath: input.packedPath, packedInMemory: input.packedInMemory, sidecar: input.sidecar, order: 2, score: 'k2', top: 15,
    backend: 'cpu', numThreads: 2, decomposition: decomposition({}), ...extra,
  };
}

describe('a fileset prepared into memory', () => {
  it('holds the bytes and sidecar of the packed file; the search over either finds the same, the reference top-N', async () => {
    const inFile = await resolved(0);
    const inMemory = await resolved(1 << 20);
    try {
      expect(inFile.packedInMemory).toBeNull();
      const packed = inMemory.packedInMemory;
      if (packed === null) throw new Error('not prepared into memory within its budget');
      expect(packed.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(Buffer.from(packed).equals(readFileSync(inFile.packedPath))).toBe(true);
      expect(inMemory.sidecar).toEqual(inFile.sidecar);
      expect(inMemory.sidecar?.numMissingCalls).toBeGreaterThan(0);
      expect((inMemory.sidecar?.numField ?? 0) % 4).not.toBe(0);
      for (const score of ['k2', 'mi'] as const) {
        const fromFile = await searchEpistasis(searchOptions(inFile, { score }));
        const fromMemory = await searchEpistasis(searchOptions(inMemory, { score }));
        expectTopOf(fromMemory, naiveEpistasis(data, 2, score), 15);
        expect(fromMemory.hits).toEqual(fromFile.hits);
        expect(fromMemory.run.checksum).toBe(fromFile.run.checksum);
      }
    } finally {
      inFile.dispose();
      inMemory.dispose();
    }
  });

  it('past its budget it goes to a temporary file', async () => {
    const input = await resolved(10);
    try {
      expect(input.packedInMemory).toBeNull();
      expect(readFileSync(input.packedPath).length).toBe(input.sidecar?.packedBytes);
    } finally {
      input.dispose();
    }
  });
});

describe('kernel threads started before the job', () => {
  it('give the results of threads the run starts itself, taken or (other threads) cancelled', async () => {
    const input = await resolved(1 << 20);
    try {
      const own = await searchEpistasis(searchOptions(input));
      const analysis = { name: 'epistasis', moduleUrl: null };
      for (const numThreads of [2, 3]) {
        const startedKernels = startRunKernels({ backend: 'cpu', numThreads, analysis });
        const ahead = await searchEpistasis(searchOptions(input, { startedKernels }));
        expect(ahead.hits).toEqual(own.hits);
        expect(ahead.run.checksum).toBe(own.run.checksum);
        // Taken (2 threads, the job's) or cancelled (3, not the job's): either way it cannot be completed again.
        await expect(startedKernels?.complete(null)).rejects.toThrow(numThreads === 2 ? /after complete\(\)/ : /after cancel\(\)/);
      }
    } finally {
      input.dispose();
    }
  });

  it('refuses a thread count past the limit before starting any, and starts nothing ahead for other backends', () => {
    const analysis = { name: 'epistasis', moduleUrl: null };
    expect(() => startRunKernels({ backend: 'cpu', numThreads: 65, analysis }, 2)).toThrow(UserError);
    expect(() => startRunKernels({ backend: 'cpu', numThreads: 65, analysis }, 2)).toThrow(/--threads 65 is more than 64/);
    expect(startRunKernels({ backend: 'ref', numThreads: 2, analysis })).toBeNull();
  });
});

describe('commands whose kernel threads started before their input failed', () => {
  it('exit 1 with the input\'s one-line error (a .bed cut short, a .fam phenotype that is no class)', () => {
    const cut = join(dir, 'cut');
    for (const extension of ['bim', 'fam']) copyFileSync(`${prefix}.${extension}`, `${cut}.${extension}`);
    copyFileSync(`${prefix}.bed`, `${cut}.bed`);
    truncateSync(`${cut}.bed`, 20);
    const badPheno = join(dir, 'pheno');
    for (const extension of ['bim', 'bed']) copyFileSync(`${prefix}.${extension}`, `${badPheno}.${extension}`);
    writeFileSync(`${badPheno}.fam`, readFileSync(`${prefix}.fam`, 'utf8').replace(/ \S+\n/, ' 7\n'));
    const cases: readonly [readonly string[], RegExp][] = [
      [['epistasis', '--bfile', cut, '--threads', '2'], /cut\.bed is truncated/],
      [['run', '--input', cut, '--threads', '2'], /cut\.bed is truncated/],
      [['epistasis', '--bfile', badPheno, '--threads', '3'], /phenotype "7" of sample/],
    ];
    for (const [args, message] of cases) {
      const started = performance.now();
      const outcome = runCli(args);
      expect(outcome.status, args.join(' ')).toBe(1);
      expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
      expect(outcome.stderr).toMatch(message);
      // No wait for threads that nothing will complete.
      expect(performance.now() - started).toBeLessThan(20_000);
    }
  });
});
