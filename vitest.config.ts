import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests run on the compiled JavaScript (`npm test` builds first) so that worker threads,
// which load dist/ modules, see exactly the code the tests import.
export default defineConfig({
  test: {
    include: ['dist/test/**/*.test.js'],
    globalSetup: ['dist/test/globalSetup.js'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default (cores − 1) runs one file at a time on 2 cores, leaving a core idle while a file waits for a
    // CLI child, a plink peer, lavapipe or its ranks' start-up, or runs on one thread: two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
