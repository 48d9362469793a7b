// `run`'s LD-window options with PLINK 1.9's meaning: --ld-window N, --ld-window-kb KB, --ld-window-r2 R, --inter-chr;
// parsed and checked here, turned into the engine's window (core/pairWindow.ts) over the input's loci.
import { UserError } from '../core/errors.js';
import { pairWindowLimits, windowKbToBp, type PairWindowSpec, type VectorLoci } from '../core/pairWindow.js';
import type { Threshold } from '../core/thresholds.js';
import { vectorsAreSamples, type PreparedSidecar } from '../io/index.js';
import type { LdWindowJob } from './engineApi.js';
import { parseCount, parseNonNegativeNumber } from './numberOptions.js';

/** The window options' text as the command line gave them. */
export interface WindowOptionText {
  readonly ldWindow?: string;
  readonly ldWindowKb?: string;
  readonly ldWindowR2?: string;
  readonly interChr?: boolean;
}

/** The window options, checked: the window (null: every pair) and --ld-window-r2 as a threshold (null: not given). */
export interface WindowOptions {
  readonly ldWindow: number | null;
  readonly ldWindowKb: number | null;
  readonly interChr: boolean;
  /** The window, or null when neither --ld-window nor --ld-window-kb is given (--inter-chr alone: every pair). */
  readonly spec: PairWindowSpec | null;
  readonly r2Threshold: Threshold | null;
}

/** Largest --ld-window: a count of vectors (outputs address at most 2^31 vectors). */
const MAX_LD_WINDOW = 2 ** 31;

/**
 * Parses the window options of a run of `metric`, `numWay`. `--ld-window-r2 R` keeps r² ≥ R as PLINK does, on the
 * float32 value like every snptally threshold: it is `--threshold` just below R (refused together with --threshold).
 */
export function parseWindowOptions(
  options: WindowOptionText & { readonly threshold?: string }, run: { readonly metric: string; readonly numWay: number },
): WindowOptions {
  // PLINK: "Invalid --ld-window window size '1'": a window of one variant has no pair.
  const ldWindow = options.ldWindow === undefined ? null : parseCount('--ld-window', options.ldWindow, { least: 2, most: MAX_LD_WINDOW });
  const ldWindowKb = options.ldWindowKb === undefined ? null : parseNonNegativeNumber('--ld-window-kb', options.ldWindowKb);
  const interChr = options.interChr === true;
  const windowed = ldWindow !== null || ldWindowKb !== null;
  if ((windowed || options.ldWindowR2 !== undefined) && run.numWay !== 2) {
    throw new UserError('--ld-window, --ld-window-kb and --ld-window-r2 apply to --way 2 only');
  }
  let r2Threshold: Threshold | null = null;
  if (options.ldWindowR2 !== undefined) {
    if (run.metric !== 'r2') throw new UserError(`--ld-window-r2 is a threshold on r²: it needs --metric r2 (use --threshold for ${run.metric})`);
    if (options.threshold !== undefined) throw new UserError('--ld-window-r2 and --threshold are the same threshold: give one of them');
    const least = parseNonNegativeNumber('--ld-window-r2', options.ldWindowR2);
    if (least > 1) throw new UserError(`--ld-window-r2 must be within [0, 1], got ${options.ldWindowR2}`);
    r2Threshold = atLeastThreshold(least);
  }
  const spec = windowed
    ? { maxVectorSpan: ldWindow, maxDistanceBp: ldWindowKb === null ? null : windowKbToBp(ldWindowKb), interChr }
    : null;
  return { ldWindow, ldWindowKb, interChr, spec, r2Threshold };
}

const float32Bits = new DataView(new ArrayBuffer(4));

/**
 * The threshold that keeps float32 values ≥ `least` (≥ 0): `> t` with t the float32 just below the smallest float32 ≥
 * `least`. 0 keeps everything: no threshold (as `--threshold -1`; undefined r² values are kept too, written as NaN).
 */
export function atLeastThreshold(least: number): Threshold {
  if (least <= 0) return { kind: 'none' };
  float32Bits.setFloat32(0, least, true);
  let bits = float32Bits.getUint32(0, true);
  if (float32Bits.getFloat32(0, true) < least) bits += 1;
  float32Bits.setUint32(0, bits - 1, true);
  return { kind: 'single', value: float32Bits.getFloat32(0, true) };
}

/**
 * The engine's window over a prepared input's vectors (the sidecar's chromosomes and positions, vectors in file
 * order). Refuses an input without them, a shuffled vector order, and loci the window cannot band (a chromosome in
 * two runs, positions decreasing within one), naming the file and the first such record.
 */
export function windowJobOf(options: WindowOptions, input: { readonly path: string; readonly sidecar: PreparedSidecar | null } | null): LdWindowJob | null {
  if (options.spec === null) return null;
  const sidecar = input?.sidecar ?? null;
  if (input === null || sidecar === null) {
    throw new UserError(
      '--ld-window and --ld-window-kb need chromosomes and positions: give a PLINK fileset, a VCF or a prepared file as --input');
  }
  if (vectorsAreSamples(sidecar)) {
    throw new UserError(`${input.path} was prepared with --individuals: its vectors are samples, and LD windows run along the genome (drop --ld-window / --ld-window-kb)`);
  }
  if (sidecar.vectorOrder !== null) {
    throw new UserError(`${input.path} was prepared with --permute: LD windows need its variants in file order (prepare it without --permute)`);
  }
  const { snps } = sidecar;
  const loci: VectorLoci = {
    chromosome: snps.chrom,
    position: snps.pos,
    record: (v) => `variant ${snps.id[v]} (number ${v + 1} of the run's ${snps.id.length})`,
  };
  // The loci come from a fileset's .bim (the sidecar names its .bed) or the VCF itself.
  const lociFile = sidecar.source.kind === 'bed' ? sidecar.source.path.replace(/\.bed$/, '.bim') : sidecar.source.path;
  const limits = pairWindowLimits(options.spec, loci, lociFile);
  return { ldWindow: options.ldWindow, ldWindowKb: options.ldWindowKb, interChr: options.interChr, limits };
}
