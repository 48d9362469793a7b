// Refusing a job before it starts when it would not fit: kernel threads and in-process ranks beyond sensible bounds,
// and an estimated peak (memoryEstimate.ts) above the host's or the GPU's memory limit.
import { readFileSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { UserError } from '../../core/errors.js';
import type { JobSpec, MemoryReport } from './jobSpec.js';
import type { AnalysisRun } from '../../analyses/index.js';
import { estimateMemory, type MemoryEstimate, type MemoryTerm } from './memoryEstimate.js';

/** Most kernel threads of a process: 4 per core (at least 64), and never past 1024 (each is a thread with its own heap). */
export function maxThreads(numCores: number): number {
  return Math.min(1024, Math.max(64, 4 * numCores));
}

/**
 * Most ranks one process runs as threads: each is a V8 isolate with its own heap and a channel to every other rank
 * (n² channels); more ranks belong in separate processes (mpirun).
 */
export const MAX_IN_PROCESS_RANKS = 256;

/** How the process that checks a job runs it. */
export interface RunPlacement {
  /** Ranks this process runs: all of them as threads (runJob), or one (MPI). */
  readonly ranksInProcess: number;
  /** Processes of the job on this host (MPI's node-local size; 1 for in-process ranks): they share its memory. */
  readonly processesOnHost: number;
  /** Kernel threads of each rank. */
  readonly threadsPerRank: number;
  /** The GPU (webgpu) expands operands to u8 (tensor cores). */
  readonly gpuExpandsToU8: boolean;
  /** Dawn is loaded in the process (`--backend webgpu`, or `auto`, which probes for an adapter). */
  readonly dawnLoaded: boolean;
  /** The GPU is a CPU implementation (lavapipe): its memory is the host's. */
  readonly gpuIsSoftware: boolean;
  /** The process is an MPI rank. */
  readonly mpiLoaded: boolean;
}

/** Where the default host limit comes from: /proc/meminfo's MemAvailable (Linux), else os.freemem(). */
export function availableHostMemory(): { readonly bytes: number; readonly source: string } {
  try {
    const match = /^MemAvailable:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match !== null) return { bytes: Number(match[1]) * 1024, source: 'MemAvailable' };
  } catch {
    // Not Linux: the OS's free memory is the nearest figure.
  }
  return { bytes: freemem(), source: 'free memory' };
}

/** Refuses a thread count past maxThreads (a one-line UserError): checkJob, and threads started before a job (kernelStart.ts). */
export function checkThreadCount(numThreads: number, numCores = availableParallelism()): void {
  const most = maxThreads(numCores);
  if (numThreads > most) {
    throw new UserError(`--threads ${numThreads} is more than ${most} (4 per core of ${numCores}, at least 64, at most 1024); give fewer --threads`);
  }
}

/** Refuses thread counts and in-process rank counts past their bounds (one-line UserErrors). */
export function checkThreadsAndRanks(job: JobSpec, ranksInProcess: number, numCores = availableParallelism()): void {
  checkThreadCount(job.numThreads, numCores);
  if (ranksInProcess > MAX_IN_PROCESS_RANKS) {
    const d = job.decomposition;
    throw new UserError(
      `${ranksInProcess} ranks (npv ${d.numProcVector} × npf ${d.numProcField} × npr ${d.numProcRepl}) are more than the ` +
      `${MAX_IN_PROCESS_RANKS} one process runs as threads; give fewer --npv/--npf/--npr or start one process per rank with mpirun`);
  }
}

const MIB = 2 ** 20;

/** Bytes as MiB or GiB with one decimal, e.g. `1.5 GiB`. */
export function formatBytes(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${(bytes / MIB).toFixed(1)} MiB`;
}

/** The largest terms, e.g. `own block 1.0 GiB, received blocks 3.0 GiB`. */
function largestTerms(terms: readonly MemoryTerm[], count: number): string {
  return [...terms].sort((a, b) => b.bytes - a.bytes).slice(0, count).map((t) => `${t.name} ${formatBytes(t.bytes)}`).join(', ');
}

/** Terms that no option changes: the process and Dawn themselves. */
const FIXED_TERMS: readonly string[] = ['node process', 'MPI library', 'Dawn (WebGPU)'];

/** Name of the largest term that options change. */
function largestVariableTerm(terms: readonly MemoryTerm[]): string {
  const variable = terms.filter((t) => !FIXED_TERMS.includes(t.name));
  return variable.length === 0 ? '' : variable.reduce((a, b) => (b.bytes > a.bytes ? b : a)).name;
}

/** What to change when `term` dominates an estimate. */
function remedyFor(term: string, job: JobSpec): string {
  const blocks = job.metricSpec.numWay === 2 ? 'more --npv with more --phases' : 'more --npv with more --phases or --stages';
  switch (term) {
    case 'own block':
    case 'resident planes':
      return 'give more --npv or --npf (ranks on other hosts, with mpirun) or fewer --vectors/--fields';
    case 'received blocks':
    case 'blocks in transit':
      return `give ${blocks} (each rank then holds fewer blocks), or run the ranks as processes with mpirun`;
    case 'rank threads':
      return 'give fewer --npv/--npf/--npr, or run the ranks as processes with mpirun';
    case 'kernel threads':
    case 'kernel scratch':
    case 'block workers':
      return 'give fewer --threads';
    default:
      return 'give more --npv or --npf (with mpirun), more --phases, or fewer --vectors';
  }
}

/**
 * Estimates the job's memory for `placement` and refuses it when the host's (all processes of the job on this host)
 * or one GPU's estimate exceeds its limit: `job.memoryLimits`, by default the memory available and no GPU limit
 * (Dawn's adapters report no memory size).
 */
export function checkMemory(job: JobSpec, placement: RunPlacement, analysis: AnalysisRun): MemoryReport {
  const estimate: MemoryEstimate = estimateMemory(job, placement, analysis);
  const limits = job.memoryLimits ?? { hostBytes: null, deviceBytes: null };
  const available = limits.hostBytes === null ? availableHostMemory() : null;
  const hostLimitBytes = limits.hostBytes ?? available?.bytes ?? Infinity;
  const hostLimitText = limits.hostBytes === null ? `the ${available?.source ?? 'available memory'} of ${formatBytes(hostLimitBytes)}` : `--memory ${Math.floor(hostLimitBytes / MIB)} MiB`;
  const hostBytesOnHost = estimate.hostBytes * placement.processesOnHost;
  if (hostBytesOnHost > hostLimitBytes) {
    const perProcess = placement.processesOnHost > 1 ? ` (${placement.processesOnHost} processes of ${formatBytes(estimate.hostBytes)})` : '';
    const fewerProcesses = placement.processesOnHost > 1 ? 'place fewer processes on each host, or ' : '';
    throw new UserError(
      `estimated peak host memory ${formatBytes(hostBytesOnHost)}${perProcess} exceeds ${hostLimitText} ` +
      `(largest: ${largestTerms(estimate.hostTerms, 2)}); ${fewerProcesses}${remedyFor(largestVariableTerm(estimate.hostTerms), job)}, or raise --memory`);
  }
  if (estimate.deviceBytes !== null && limits.deviceBytes !== null && estimate.deviceBytes > limits.deviceBytes) {
    throw new UserError(
      `estimated peak GPU memory ${formatBytes(estimate.deviceBytes)} per rank exceeds --device-memory ${Math.floor(limits.deviceBytes / MIB)} MiB ` +
      `(largest: ${largestTerms(estimate.deviceTerms, 2)}); ${remedyFor(largestVariableTerm(estimate.deviceTerms), job)}, or raise --device-memory`);
  }
  return {
    estimatedHostBytes: estimate.hostBytes,
    hostMemoryLimitBytes: Number.isFinite(hostLimitBytes) ? hostLimitBytes : null,
    estimatedDeviceBytes: estimate.deviceBytes,
    deviceMemoryLimitBytes: limits.deviceBytes,
  };
}
