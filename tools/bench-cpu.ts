// CPU benchmark: snptally comparisons per second for 2-way and 3-way CCC, dense and sparse, on 1 and
// 2 threads, end to end (one rank, no output), with PLINK 1.9's --r2 on the same data in the same run.
// PLINK runs `--r2 triangle bin4`: every unique pair once, binary output, as snptally counts them
// (`square` would compute each pair twice). `--metric czekanowski`: 2-way and 3-way Czekanowski, double and
// single, against the min+add ceiling instead (tools/lib/czekanowskiBench.ts).
//
//   node dist/tools/bench-cpu.js [--quick] [--json] [--way 2|3] [--metric ccc|czekanowski]
//
// Data: random genotypes (no missing calls for dense runs, ~5% missing for sparse), written once as
// CoMet's packed file (read by snptally) and as a PLINK .bed/.bim/.fam (read by plink1.9).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Option } from 'commander';
import { defaultMultiplier, DEFAULT_PARAM, type NumWay } from '../src/core/types.js';
import { runJob, type JobSpec } from '../src/engine/index.js';
import { createToolProgram, parseToolOptions } from './lib/cliOptions.js';
import { runCzekanowskiBench } from './lib/czekanowskiBench.js';

interface BenchCase { numWay: NumWay; sparse: boolean; numVector: number; numField: number }

interface BenchCpuOptions {
  readonly quick: boolean;
  readonly json: boolean;
  readonly way?: '2' | '3';
  readonly metric: 'ccc' | 'czekanowski';
}

const options = parseToolOptions<BenchCpuOptions>(createToolProgram('bench-cpu',
  'snptally comparisons per second (2-way and 3-way CCC, dense and sparse, 1 and 2 threads) beside plink1.9 --r2')
  .option('--quick', 'small problems, one dense case per way (a smoke run)', false)
  .option('--json', 'print one JSON array of the rows instead of text', false)
  .addOption(new Option('--way <n>', 'only the cases of this way (default: both)').choices(['2', '3']))
  .addOption(new Option('--metric <name>', 'ccc (beside plink1.9) or czekanowski (double and single, beside the min+add ceiling)')
    .choices(['ccc', 'czekanowski']).default('ccc')));
const onlyWay = options.way === undefined ? null : Number(options.way);
const allCases: BenchCase[] = options.quick
  ? [{ numWay: 2, sparse: false, numVector: 512, numField: 4096 }, { numWay: 3, sparse: false, numVector: 96, numField: 2048 }]
  : [
    { numWay: 2, sparse: false, numVector: 2048, numField: 16384 },
    { numWay: 2, sparse: true, numVector: 2048, numField: 16384 },
    { numWay: 3, sparse: false, numVector: 256, numField: 8192 },
    { numWay: 3, sparse: true, numVector: 192, numField: 8192 },
  ];
const cases = allCases.filter((c) => onlyWay === null || c.numWay === onlyWay);
const threadCounts = [1, Math.min(2, availableParallelism())].filter((t, i, a) => a.indexOf(t) === i);

/** Deterministic xorshift so every run benchmarks the same data. */
function genotypes(numVector: number, numField: number, missingRate: number, seed: number): Uint8Array {
  let s = seed >>> 0 || 1;
  const next = (): number => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
  const codes = new Uint8Array(numVector * numField);
  for (let t = 0; t < codes.length; t++) {
    const u = next();
    // snptally codes: 00 hom A2, 01 het, 11 hom A1, 10 missing.
    codes[t] = u < missingRate ? 0b10 : [0b00, 0b01, 0b11][Math.floor(next() * 3)];
  }
  return codes;
}

function packCodes(codes: Uint8Array, numVector: number, numField: number, map: (c: number) => number): Uint8Array {
  const bytesPerVector = Math.ceil(numField / 4);
  const out = new Uint8Array(numVector * bytesPerVector);
  for (let v = 0; v < numVector; v++) for (let f = 0; f < numField; f++) {
    out[v * bytesPerVector + (f >> 2)] |= map(codes[v * numField + f]) << ((f & 3) * 2);
  }
  return out;
}

/** snptally code → PLINK .bed code (SPEC §1: hom A1 11 ↔ 00, het 01 ↔ 10, hom A2 00 ↔ 11, missing 10 ↔ 01). */
const toBed = (c: number): number => [0b11, 0b10, 0b01, 0b00][c];

function writePlinkFileset(prefix: string, codes: Uint8Array, numVector: number, numField: number): void {
  const bed = packCodes(codes, numVector, numField, toBed);
  writeFileSync(`${prefix}.bed`, Buffer.concat([Buffer.from([0x6c, 0x1b, 0x01]), Buffer.from(bed)]));
  writeFileSync(`${prefix}.bim`, Array.from({ length: numVector }, (_, v) => `1\tsnp${v}\t0\t${v + 1}\tA\tG\n`).join(''));
  writeFileSync(`${prefix}.fam`, Array.from({ length: numField }, (_, f) => `f${f}\ts${f}\t0\t0\t0\t-9\n`).join(''));
}

function job(c: BenchCase, path: string, numThreads: number): JobSpec {
  return {
    metricSpec: { metric: 'ccc', numWay: c.numWay, sparse: c.sparse, param: DEFAULT_PARAM, multiplier: defaultMultiplier('ccc') },
    numVector: c.numVector, numField: c.numField, source: { kind: 'file', path },
    decomposition: { numProcVector: 1, numProcField: 1, numProcRepl: 1, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows' },
    threshold: { kind: 'none' }, outputStub: null, force: false, singlePrecisionOutput: false,
    backend: 'cpu', finalize: 'auto', numThreads, verify: false,
  };
}

function plinkSeconds(prefix: string, numThreads: number): number | null {
  if (spawnSync('plink1.9', ['--version']).status !== 0) return null;
  const start = performance.now();
  execFileSync('plink1.9', ['--bfile', prefix, '--r2', 'triangle', 'bin4', '--threads', String(numThreads),
    '--allow-no-sex', '--out', `${prefix}-ld-${numThreads}`], { stdio: 'ignore' });
  return (performance.now() - start) / 1000;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'snptally-bench-'));
  const rows: Record<string, unknown>[] = [];
  try {
    for (const c of cases) {
      const codes = genotypes(c.numVector, c.numField, c.sparse ? 0.05 : 0, 12345);
      const path = join(dir, `v${c.numVector}f${c.numField}${c.sparse ? 's' : 'd'}.bin`);
      writeFileSync(path, packCodes(codes, c.numVector, c.numField, (x) => x));
      const prefix = path.replace(/\.bin$/, '');
      if (c.numWay === 2) writePlinkFileset(prefix, codes, c.numVector, c.numField);
      for (const t of threadCounts) {
        const r = await runJob(job(c, path, t));
        const row: Record<string, unknown> = {
          way: c.numWay, sparse: c.sparse, vectors: c.numVector, fields: c.numField, threads: t,
          seconds: +r.seconds.toFixed(3), comparisonsPerSecond: r.comparisonsPerSecond,
        };
        if (c.numWay === 2) {
          const s = plinkSeconds(prefix, t);
          if (s !== null) {
            row.plinkSeconds = +s.toFixed(3);
            row.plinkComparisonsPerSecond = r.comparisons / s;
            row.speedupOverPlink = +(s / r.seconds).toFixed(2);
          }
        }
        rows.push(row);
        if (!options.json) {
          const fmt = (x: unknown): string => (typeof x === 'number' ? x.toExponential(2) : '-');
          console.log(`CCC ${c.numWay}-way ${c.sparse ? 'sparse' : 'dense '} nv ${c.numVector} nf ${c.numField} threads ${t}: `
            + `${fmt(row.comparisonsPerSecond)} cmp/s (${row.seconds} s)`
            + (row.plinkSeconds !== undefined ? `; plink1.9 --r2 ${fmt(row.plinkComparisonsPerSecond)} cmp/s (${row.plinkSeconds} s), snptally ${row.speedupOverPlink}x` : ''));
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (options.json) console.log(JSON.stringify(rows));
}

async function mainCzekanowski(): Promise<void> {
  const ways: NumWay[] = onlyWay === null ? [2, 3] : [onlyWay === 2 ? 2 : 3];
  const rows = await runCzekanowskiBench({
    quick: options.quick, ways, threadCounts,
    report: (row) => {
      if (options.json) return;
      console.log(`Czekanowski ${row.way}-way ${row.precision} nv ${row.vectors} nf ${row.fields} threads ${row.threads} (${row.kernelSet}): `
        + `${row.comparisonsPerSecond.toExponential(2)} cmp/s (${row.seconds} s; compute ${row.computeComparisonsPerSecond.toExponential(2)}), `
        + `ceiling ${row.ceilingComparisonsPerSecond.toExponential(2)}, ${(100 * row.fractionOfCeiling).toFixed(0)}%`);
    },
  });
  if (options.json) console.log(JSON.stringify(rows));
}

await (options.metric === 'czekanowski' ? mainCzekanowski() : main());
