// bench-cpu's Czekanowski cases (`--metric czekanowski`): 2-way and 3-way, double and single, 1 and 2 threads, end
// to end on the synthetic random problem (one rank, no output), beside the ceiling they are measured against.
//
// Comparisons as CoMet counts them: a 2-way comparison is one (pair, field) min-add, a 3-way one a (triple, field)
// term. Ceiling: the 2-way wasm microkernel's rate on one L1-resident tile (assembly/minplus/ceiling.ts) — this
// core's issue rate of the kernel's SIMD mins and adds (2 SIMD ops per 2 or 4 lanes) — times the threads; a 3-way term
// takes 6 SIMD ops (2 mins, 3 adds, 1 subtract) where a 2-way comparison takes 2, so its ceiling is a third of that.
import { DEFAULT_PARAM, defaultMultiplier, type NumWay } from '../../src/core/types.js';
import { runJob, type JobSpec } from '../../src/engine/index.js';
import { loadMinPlusModule, MinPlusWasmInstance, type ValuePrecision } from '../../src/mgemm/index.js';

interface CzekanowskiCase { readonly numWay: NumWay; readonly numVector: number; readonly numField: number }

/** One measured run. */
export interface CzekanowskiBenchRow {
  readonly metric: 'czekanowski';
  readonly way: NumWay;
  readonly precision: ValuePrecision;
  readonly vectors: number;
  readonly fields: number;
  readonly threads: number;
  readonly kernelSet: string;
  readonly seconds: number;
  readonly comparisonsPerSecond: number;
  /** Comparisons per second of the kernel set's part only (the engine's compute phase). */
  readonly computeComparisonsPerSecond: number;
  readonly ceilingComparisonsPerSecond: number;
  /** comparisonsPerSecond / ceiling. */
  readonly fractionOfCeiling: number;
}

function czekanowskiCases(quick: boolean): CzekanowskiCase[] {
  return quick
    ? [{ numWay: 2, numVector: 256, numField: 1024 }, { numWay: 3, numVector: 64, numField: 1024 }]
    : [{ numWay: 2, numVector: 2048, numField: 4096 }, { numWay: 3, numVector: 256, numField: 2048 }];
}

function czekanowskiJob(c: CzekanowskiCase, precision: ValuePrecision, numThreads: number): JobSpec {
  return {
    metricSpec: { metric: 'czekanowski', numWay: c.numWay, sparse: false, param: DEFAULT_PARAM, multiplier: defaultMultiplier('czekanowski'), precision },
    numVector: c.numVector, numField: c.numField, source: { kind: 'random' },
    decomposition: { numProcVector: 1, numProcField: 1, numProcRepl: 1, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows' },
    threshold: { kind: 'none' }, outputStub: null, force: false, singlePrecisionOutput: false,
    backend: 'cpu', finalize: 'auto', numThreads, verify: false,
  };
}

/** The single-core ceiling of a precision, in 2-way comparisons per second: the best of several short runs. */
async function ceilingPerCore(precision: ValuePrecision): Promise<number> {
  const probe = await loadMinPlusModule();
  if (!probe.available) throw new Error(probe.reason);
  const instance = await MinPlusWasmInstance.create(probe.module);
  instance.minAddCeiling(2000, precision);
  let best = 0;
  for (let rep = 0; rep < 7; rep++) {
    const start = performance.now();
    const pairs = instance.minAddCeiling(20000, precision);
    best = Math.max(best, pairs / ((performance.now() - start) / 1000));
  }
  return best;
}

/** Runs every case of `ways` in both precisions on each thread count; `report` sees each row as it is measured. */
export async function runCzekanowskiBench(options: {
  readonly quick: boolean; readonly ways: readonly NumWay[]; readonly threadCounts: readonly number[];
  readonly report: (row: CzekanowskiBenchRow) => void;
}): Promise<CzekanowskiBenchRow[]> {
  const rows: CzekanowskiBenchRow[] = [];
  for (const precision of ['double', 'single'] as const) {
    const perCore = await ceilingPerCore(precision);
    for (const c of czekanowskiCases(options.quick).filter((k) => options.ways.includes(k.numWay))) {
      for (const threads of options.threadCounts) {
        const r = await runJob(czekanowskiJob(c, precision, threads));
        const ceiling = (perCore * threads) / (c.numWay === 2 ? 1 : 3);
        const row: CzekanowskiBenchRow = {
          metric: 'czekanowski', way: c.numWay, precision, vectors: c.numVector, fields: c.numField, threads,
          kernelSet: r.rankDevices[0].kernelSet, seconds: +r.seconds.toFixed(3), comparisonsPerSecond: r.comparisonsPerSecond,
          computeComparisonsPerSecond: r.computeComparisonsPerSecond, ceilingComparisonsPerSecond: ceiling,
          fractionOfCeiling: +(r.comparisonsPerSecond / ceiling).toFixed(3),
        };
        rows.push(row);
        options.report(row);
      }
    }
  }
  return rows;
}
