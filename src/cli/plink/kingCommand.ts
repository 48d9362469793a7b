// `snptally plink` with plink2's relatedness flags: runs `--metric king` over the input's samples with PLINK's
// selection and plink2's autosomes (`run --individuals --autosome`: transposed in the run's memory, no prepared file) —
// a dense matrix for --make-king, the pairs' counts as records for --make-king-table and --king-cutoff (above a
// threshold when every use has one) — and writes plink2's files under its names, all renamed into place together.
import { join } from 'node:path';
import { UserError } from '../../core/errors.js';
import { readSidecar, stageFile, type PreparedSidecar } from '../../io/index.js';
import { inputSidecarPathOf, sampleMissingPathOf } from '../runCompanions.js';
import { readRunInfo } from '../runInfoFile.js';
import { logHeaderLines, runFrontEndCommand, type FrontEndSession } from './frontEndSession.js';
import { kingOutputPaths, parseKingFlags, type KingRequest } from './kingFlags.js';
import { sortedKingPairs } from './kingPairs.js';
import { kingCutoffRemoved, passOverKingPairs, sampleIdFileText, type KingPassResult, type SampleIdPair } from './kingReport.js';

/** The largest double below x (x finite and not 0 … only the sign matters at 0): a threshold "> it" keeps "≥ x". */
export function doubleBelow(x: number): number {
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  if (x === 0) return -Number.MIN_VALUE;
  bits[0] += x > 0 ? -1n : 1n;
  return new Float64Array(bits.buffer)[0];
}

/**
 * The run's kinship threshold for records: pairs whose kinship is not ≤ T are recorded. The table filter F keeps
 * kinship ≥ F (T just below F), the cutoff X needs kinship > X; null (every pair) when a table has no filter, or when
 * T would be negative (snptally's threshold is off below 0).
 */
export function recordsThreshold(request: KingRequest): number | null {
  const bounds: number[] = [];
  if (request.table !== null) {
    if (request.tableFilter === null) return null;
    bounds.push(doubleBelow(request.tableFilter));
  }
  if (request.cutoff !== null) bounds.push(request.cutoff);
  const threshold = Math.min(...bounds);
  return threshold >= 0 ? threshold : null;
}

/** The samples of a sample-major run's input (its `<stub>.input.json`), with their PLINK IDs. */
function samplesOf(sidecar: PreparedSidecar): SampleIdPair[] {
  if (sidecar.sampleNames === undefined) throw new Error('a sample-major sidecar without sampleNames');
  return sidecar.sampleNames.map(({ fid, iid }) => ({ fid, iid }));
}

/** The input a run described (`<stub>.input.json`), refused below 2 samples. */
function runInputOf(stub: string): { readonly sidecar: PreparedSidecar; readonly samples: SampleIdPair[] } {
  const sidecar = readSidecar(inputSidecarPathOf(stub));
  const samples = samplesOf(sidecar);
  if (samples.length < 2) throw new UserError('plink: --make-king, --make-king-table and --king-cutoff need at least 2 samples');
  return { sidecar, samples };
}

/** Runs a KING command line (flags as PLINK's argument list). */
export async function runKing(flags: readonly string[]): Promise<void> {
  const request = parseKingFlags(flags);
  await runFrontEndCommand({ out: request.out, paths: kingOutputPaths(request), force: request.force }, async (session) => {
    const { scratch, staged, run } = session;
    const runArgs = [
      'run', '--metric', 'king', request.input.flag, request.input.path, ...request.selectionArgs, '--individuals', '--autosome', ...request.resourceArgs,
    ];
    let input: ReturnType<typeof runInputOf> | null = null;
    if (request.matrix !== null) {
      const stub = join(scratch, 'matrix');
      await run([...runArgs, '--matrix', request.matrix.shape, '--matrix-format', request.matrix.format, '--out', stub, '--json']);
      input = runInputOf(stub);
      const text = request.matrix.format === 'text';
      staged.push({ finalPath: `${request.out}.king${text ? '' : '.bin'}`, temporaryPath: `${stub}.king${text ? '' : '.bin'}` });
      staged.push(stageFile(`${request.out}.king.id`, sampleIdFileText(input.samples)));
    }
    let pass: KingPassResult | null = null;
    if (request.table !== null || request.cutoff !== null) {
      const stub = join(scratch, 'pairs');
      const threshold = recordsThreshold(request);
      await run([...runArgs, ...(threshold === null ? [] : ['--threshold', String(threshold)]), '--out', stub, '--json']);
      input = runInputOf(stub);
      const { samples, sidecar } = input;
      const pairs = sortedKingPairs(readRunInfo(`${stub}.run.json`).outputPaths, scratch);
      const source = { pairs, samples, missingCallsPath: sampleMissingPathOf(stub), numSnp: sidecar.numField };
      if (request.table === null) {
        pass = passOverKingPairs(source, null, request.cutoff);
      } else {
        // Written in the scratch directory (removed with it on failure), renamed into place with the other files.
        const tablePath = join(scratch, 'table.kin0');
        const finalPath = `${request.out}.kin0`;
        pass = passOverKingPairs(source, { path: tablePath, finalPath, options: { counts: request.table.counts, filter: request.tableFilter } }, request.cutoff);
        staged.push({ finalPath, temporaryPath: tablePath });
      }
    }
    if (input === null) throw new Error('a KING command with neither a matrix nor pairs');
    const { samples, sidecar } = input;
    let numRemoved: number | null = null;
    if (request.cutoff !== null && pass !== null) {
      const removed = kingCutoffRemoved(samples.length, pass.closePairs);
      numRemoved = removed.reduce((sum, flag) => sum + flag, 0);
      staged.push(stageFile(`${request.out}.king.cutoff.in.id`, sampleIdFileText(samples.filter((_, s) => removed[s] === 0), samples)));
      staged.push(stageFile(`${request.out}.king.cutoff.out.id`, sampleIdFileText(samples.filter((_, s) => removed[s] === 1), samples)));
    }
    const log = kingLog(request, { session, sidecar, pass, numRemoved });
    staged.push(stageFile(`${request.out}.log`, log));
    return log;
  });
}

/** What the log reports. */
interface KingLogFacts {
  readonly session: Pick<FrontEndSession, 'started' | 'commands'>;
  readonly sidecar: PreparedSidecar;
  readonly pass: KingPassResult | null;
  readonly numRemoved: number | null;
}

/** plink2's log, in its shape: options in effect, what was kept, what was written; plus the snptally commands run. */
function kingLog(request: KingRequest, facts: KingLogFacts): string {
  const { out } = request;
  const lines = [
    ...logHeaderLines('PLINK 2 front end', request.optionsInEffect, facts.session),
    `${facts.sidecar.numVector} samples and ${facts.sidecar.numField} autosomal variants remain after filters.`,
    `--make-king: ${facts.sidecar.numField} variants processed.`,
  ];
  if (request.matrix !== null) lines.push(`Results written to ${out}.king${request.matrix.format === 'text' ? '' : '.bin'} and ${out}.king.id .`);
  if (request.table !== null && facts.pass !== null) {
    lines.push(`Results written to ${out}.kin0 .`);
    if (request.tableFilter !== null) {
      lines.push(`--king-table-filter: ${facts.pass.numTableLines} relationships reported (${facts.pass.numFilteredOut} filtered out).`);
    }
  }
  if (facts.numRemoved !== null) {
    lines.push(`--king-cutoff: ${facts.numRemoved} sample IDs written to ${out}.king.cutoff.out.id , and ` +
      `${facts.sidecar.numVector - facts.numRemoved} remaining sample IDs written to ${out}.king.cutoff.in.id .`);
  }
  return [...lines, '', `End time: ${new Date().toString()}`, ''].join('\n');
}
