// Runs a job from JavaScript through the package's API (`import { run } from 'snptally'`) and checks its checksum
// against SPEC §5's reference value for the problem (CoMet's). Exit status 0 when they agree.
//
//   node examples/run-from-javascript.mjs        (in a checkout after npm run build, or wherever snptally is installed)
import { run, UserError } from 'snptally';

/** SPEC §5: CCC 2-way, nv 48, nf 100, random problem. */
const REFERENCE_CHECKSUM = '0-34600668891914-795881718560018816';

try {
  const result = await run({ metric: 'ccc', way: 2, problem: 'random', vectors: 48, fields: 100 });
  const kernelSets = [...new Set(result.rankDevices.map((device) => device.kernelSet))].join(', ');
  console.log(`checksum ${result.checksum} entries ${result.entries} comparisons ${result.comparisons} kernels ${kernelSets}`);
  if (result.checksum !== REFERENCE_CHECKSUM) {
    console.error(`run-from-javascript: expected SPEC §5's checksum ${REFERENCE_CHECKSUM}`);
    process.exitCode = 1;
  }
} catch (error) {
  // A UserError is a bad option or input, with a one-line message; anything else is a bug.
  if (!(error instanceof UserError)) throw error;
  console.error(`run-from-javascript: ${error.message}`);
  process.exitCode = 1;
}
