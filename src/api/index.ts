// snptally's JavaScript API (the package's `exports`): run a job, get its typed result.
//
//   import { run } from 'snptally';
//   const result = await run({ metric: 'ccc', vectors: 48, fields: 100 });   // result.checksum, result.entries, …
export { run, type RunOptions } from './runSnptally.js';
export type { MemoryReport, RankDevice, RunHistogram, RunResult } from '../cli/index.js';
export { UserError } from '../core/errors.js';
