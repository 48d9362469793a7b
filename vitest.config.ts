import { defineConfig } from 'vitest/config';

// Tests run on the compiled JavaScript (`npm test` builds first) so that worker threads,
// which load dist/ modules, see exactly the code the tests import.
export default defineConfig({
  test: {
    include: ['dist/test/**/*.test.js'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
