// Builders of JobSpecs for engine tests, the SPEC §5 cases, and checksums of runs cut into one run per phase.
import { singleThreshold, type Threshold } from '../../src/core/thresholds.js';
import { defaultMultiplier, DEFAULT_PARAM, type MetricKind, type NumWay } from '../../src/core/types.js';
import { runJob, type DecompositionSpec, type JobSpec, type ProblemSource } from '../../src/engine/index.js';

export interface JobOptions {
  metric?: MetricKind;
  numWay?: NumWay;
  sparse?: boolean;
  numVector: number;
  numField: number;
  source?: ProblemSource;
  decomposition?: Partial<DecompositionSpec>;
  threshold?: number | null;
  /** A full threshold (e.g. per-entry); overrides `threshold`. */
  thresholdSpec?: Threshold;
  backend?: JobSpec['backend'];
  finalize?: JobSpec['finalize'];
  numThreads?: number;
  verify?: boolean;
  outputStub?: string | null;
  force?: boolean;
}

export function makeJob(o: JobOptions): JobSpec {
  const metric = o.metric ?? 'ccc';
  const d = o.decomposition ?? {};
  const numPhase = d.numPhase ?? 1;
  const numStage = d.numStage ?? 1;
  return {
    metricSpec: { metric, numWay: o.numWay ?? 2, sparse: o.sparse ?? false, param: DEFAULT_PARAM, multiplier: defaultMultiplier(metric) },
    numVector: o.numVector,
    numField: o.numField,
    source: o.source ?? { kind: 'random' },
    decomposition: {
      numProcVector: d.numProcVector ?? 1, numProcField: d.numProcField ?? 1, numProcRepl: d.numProcRepl ?? 1,
      numPhase, phaseMin: d.phaseMin ?? 0, phaseMax: d.phaseMax ?? numPhase - 1,
      numStage, stageMin: d.stageMin ?? 0, stageMax: d.stageMax ?? numStage - 1,
      halfDiagonal: d.halfDiagonal ?? 'lower-rows',
    },
    threshold: o.thresholdSpec ?? singleThreshold(o.threshold ?? null),
    outputStub: o.outputStub ?? null,
    force: o.force ?? false,
    singlePrecisionOutput: false,
    backend: o.backend ?? 'cpu',
    finalize: o.finalize ?? 'auto',
    numThreads: o.numThreads ?? 1,
    verify: o.verify ?? false,
  };
}

/** The reference checksums of SPEC §5. */
export const SPEC_CASES: readonly { name: string; job: Omit<JobOptions, 'decomposition'>; checksum: string }[] = [
  { name: 'CCC 2-way, nv 4, nf 2, analytic', job: { numVector: 4, numField: 2, source: { kind: 'analytic' } }, checksum: '0-245201878478-801640733671948288' },
  { name: 'CCC 3-way, nv 4, nf 2, analytic', job: { numWay: 3, numVector: 4, numField: 2, source: { kind: 'analytic' } }, checksum: '0-20352394550-918734323983581184' },
  { name: 'CCC 2-way, nv 48, nf 100, random', job: { numVector: 48, numField: 100 }, checksum: '0-34600668891914-795881718560018816' },
  { name: 'CCC 2-way sparse, nv 48, nf 100, random', job: { sparse: true, numVector: 48, numField: 100 }, checksum: '0-33543338342814-112679650647204196' },
  { name: 'CCC 3-way, nv 36, nf 100, random', job: { numWay: 3, numVector: 36, numField: 100 }, checksum: '0-144962007142596-694338058451516346' },
  { name: 'DUO 2-way sparse, nv 48, nf 100, random', job: { metric: 'duo', sparse: true, numVector: 48, numField: 100 }, checksum: '0-25544782430596-363343116734123798' },
];

/** The SPEC §5 case whose name starts with `prefix`. */
export function caseNamed(prefix: string): { job: Omit<JobOptions, 'decomposition'>; checksum: string } {
  const c = SPEC_CASES.find((x) => x.name.startsWith(prefix));
  if (c === undefined) throw new Error(prefix);
  return c;
}

/** Parses CoMet's `hi-mid-lo` checksum back into S. */
function parseChecksum(text: string): bigint {
  const [hi, mid, lo] = text.split('-').map(BigInt);
  return (hi << 120n) + (mid << 60n) + lo;
}

function formatSum(s: bigint): string {
  const m = (1n << 60n) - 1n;
  return `${s >> 120n}-${(s >> 60n) & m}-${s & m}`;
}

/** Runs phases [0, numPhase) (and stages) one run at a time and sums their checksums. */
export async function splitRunChecksum(job: Omit<JobOptions, 'decomposition'>, d: Partial<DecompositionSpec>): Promise<string> {
  let s = 0n;
  const numPhase = d.numPhase ?? 1;
  const numStage = d.numStage ?? 1;
  for (let p = 0; p < numPhase; p++) for (let t = 0; t < numStage; t++) {
    const r = await runJob(makeJob({ ...job, decomposition: { ...d, phaseMin: p, phaseMax: p, stageMin: t, stageMax: t } }));
    s += parseChecksum(r.checksum);
  }
  return formatSum(s);
}
