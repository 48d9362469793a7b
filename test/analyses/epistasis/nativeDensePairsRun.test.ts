// Whole engine runs of dense 2-way epistasis with the native scorer (the built-in analysis: its fused dense bands, tallies
// and scores in one call per band, pipeline/windowBands.ts) against the same runs on the JS path (jsScoredEpistasis.ts:
// the kernel set's GEMM, then finalize tasks): the same checksum, entries and zeros, the same top-N file and the same
// threshold record files byte for byte — K2, MI and IG, over several blocks (row SNPs after column SNPs: transposed
// cells), replicas and phases, on 2 threads; K2 on 1 and 3 threads too.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runJob, type JobSpec } from '../../../src/engine/index.js';
import { epistasisJob } from '../../../src/cli/epistasis/epistasisSearch.js';
import { loadNativePairScorer } from '../../../src/analyses/epistasis/native/nativePairScores.js';
import { randomCaseControlData } from './naiveEpistasis.js';
import { decomposition, preparedCaseControl, type Decomposition } from './epistasisFiles.js';

const native = loadNativePairScorer();
if (process.arch === 'x64' && !native.available) throw new Error(`on x86-64 the native epistasis scorer must be built: ${native.reason}`);
const JS_SCORED = new URL('./jsScoredEpistasis.js', import.meta.url).href;

const dir = mkdtempSync(join(tmpdir(), 'epistasis-native-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The run's result figures and its files' bytes (by name without the stub). */
async function runOf(job: JobSpec, stub: string): Promise<{ checksum: string; entries: number; zeros: number; files: Record<string, string> }> {
  const result = await runJob({ ...job, outputStub: join(dir, stub) });
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir).filter((f) => f.startsWith(`${stub}_`) && f.endsWith('.bin'))) {
    files[name.slice(stub.length)] = readFileSync(join(dir, name)).toString('base64');
  }
  return { checksum: result.checksum, entries: result.entries, zeros: result.zeros, files };
}

describe('dense 2-way epistasis runs: native scorer = JS path', () => {
  // 70 SNPs × 203 samples, no missing call (the dense path), ~8% missing phenotypes.
  const filesPromise = preparedCaseControl(dir, 'dense', randomCaseControlData(70, 203, 21, 0));
  let runIdx = 0;

  const runs = [
    ...(['k2', 'mi', 'ig'] as const).map((score) => ({ score, numThreads: 2, parts: [{}, { numProcVector: 3 }, { numProcVector: 2, numProcRepl: 2, numPhase: 2 }] })),
    { score: 'k2' as const, numThreads: 1, parts: [{}, { numProcVector: 3 }] },
    { score: 'k2' as const, numThreads: 3, parts: [{}, { numProcVector: 2, numPhase: 2 }] },
  ];
  it.each(runs)('$score on $numThreads threads: checksum, top 15 and threshold records, one rank and several', async ({ score, numThreads, parts }) => {
    const files = await filesPromise;
    for (const part of parts as readonly Partial<Decomposition>[]) {
      const options = { ...files, order: 2 as const, score, top: 15, backend: 'cpu' as const, numThreads, decomposition: decomposition(part) };
      // The top 15, then every pair whose value passes a threshold a little below the 15th's.
      let weakestTop = 0;
      for (const kind of ['top', 'threshold'] as const) {
        const job = epistasisJob(options, 'unused', kind === 'top' ? { top: 15 } : { threshold: { kind: 'single', value: weakestTop - 0.01 } });
        const viaNative = await runOf(job, `native${runIdx}`);
        const viaJs = await runOf({ ...job, analysisModule: JS_SCORED }, `js${runIdx++}`);
        expect(viaNative).toEqual(viaJs);
        expect(viaNative.entries).toBe((70 * 69) / 2);
        const bytes = Buffer.concat(Object.values(viaNative.files).map((text) => Buffer.from(text, 'base64')));
        const values = Array.from({ length: bytes.length / 12 }, (_, r) => bytes.readFloatLE(12 * r + 8));
        if (kind === 'top') {
          expect(values.length).toBe(15);
          weakestTop = Math.min(...values);
        } else {
          expect(values.length).toBeGreaterThan(15);
        }
      }
    }
  }, 120_000);
});
