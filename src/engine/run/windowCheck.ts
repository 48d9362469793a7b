// What an LD window cannot go with, refused before any work: 3-way runs, dense matrices, limits of another run.
import { UserError } from '../../core/errors.js';
import type { JobSpec } from './jobSpec.js';

/** Refuses a windowed job the engine cannot run, in one line naming the option. */
export function checkWindowJob(job: JobSpec): void {
  const window = job.window ?? null;
  if (window === null) return;
  if (job.metricSpec.numWay !== 2) throw new UserError('--ld-window, --ld-window-kb and --ld-window-r2 apply to --way 2 only');
  // PLINK refuses them with matrix output too: a matrix holds every pair.
  if ((job.matrix ?? null) !== null) throw new UserError('--matrix writes every pair: it does not go with --ld-window or --ld-window-kb');
  const { limits } = window;
  for (const words of [limits.bandBegin, limits.bandEnd, limits.chrBegin, limits.chrEnd]) {
    if (words.length !== job.numVector) throw new Error(`an LD window of ${words.length} vectors for a job of ${job.numVector}`);
  }
}
