// The level rules of docs/ARCHITECTURE.md hold for the repository, and the checker catches each kind of break.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLevels, parseLevelTable } from '../tools/check-levels.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ARCHITECTURE = readFileSync(join(REPO_ROOT, 'docs/ARCHITECTURE.md'), 'utf8');

describe('level table', () => {
  it('is read from docs/ARCHITECTURE.md', () => {
    expect(parseLevelTable(ARCHITECTURE)).toEqual([
      { folder: 'src/core', level: 1 },
      { folder: 'src/mgemm', level: 2 },
      { folder: 'src/io', level: 2 },
      { folder: 'src/parallel', level: 3 },
      { folder: 'src/analyses', level: 4 },
      { folder: 'src/analyses/comet', level: 4 },
      { folder: 'src/analyses/epistasis', level: 4 },
      { folder: 'src/analyses/grm', level: 4 },
      { folder: 'src/analyses/king', level: 4 },
      { folder: 'src/analyses/r2', level: 4 },
      { folder: 'src/analyses/distance', level: 4 },
      { folder: 'src/engine', level: 5 },
      { folder: 'src/cli', level: 6 },
      { folder: 'src/api', level: 6 },
      { folder: 'tools', level: 6 },
      { folder: 'examples', level: 6 },
    ]);
  });
});

describe('the repository', () => {
  it('has no upward or back-door imports', () => {
    const violations = checkLevels(REPO_ROOT).map((v) => `${v.file}:${v.line}: '${v.specifier}' ${v.reason}`);
    expect(violations).toEqual([]);
  });
});

describe('checkLevels on a small tree', () => {
  const root = mkdtempSync(join(tmpdir(), 'snptally-levels-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function write(path: string, text: string): void {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }

  it('reports upward, back-door and unplaced files, and accepts the rest', () => {
    write('docs/ARCHITECTURE.md', ARCHITECTURE);
    write('src/core/types.ts', 'export type A = number;\n');
    write('src/io/index.ts', "export * from './reader.js';\n");
    write('src/io/reader.ts',
      "import type { A } from '../core/types.js';\n" +
      "import { plan } from '../parallel/index.js';\n" +
      "import { kernel } from '../mgemm/index.js';\n" + // same level, through its index: allowed
      "import { pack } from '../mgemm/packing.js';\n");
    write('src/mgemm/index.ts', "export const kernel = 1;\nimport fs from 'node:fs';\n");
    write('src/mgemm/kernels/wasm/assembly/k.ts', "import '../../../../cli/main.js';\n");
    write('src/parallel/index.ts', "export const plan = 1;\n");
    write('src/parallel/plan.ts',
      "import { kernel } from '../mgemm/index.js';\n" +
      "import { read } from '../io/reader.js';\n" +
      "import { x } from '../core/types.js';\n");
    write('src/engine/run.ts', "const cli = await import('../cli/main.js');\n");
    write('tools/bench.ts', "import { runJob } from '../src/engine/run/runJob.js';\n");
    write('src/stray.ts', 'export {};\n');

    const found = checkLevels(root).map((v) => `${v.file}:${v.line} ${v.reason}`);
    expect(found).toEqual([
      'src/engine/run.ts:1 imports upward: src/cli (level 6) from src/engine (level 5)',
      'src/io/reader.ts:2 imports upward: src/parallel (level 3) from src/io (level 2)',
      'src/io/reader.ts:4 enters src/mgemm other than through src/mgemm/index.ts',
      'src/parallel/plan.ts:2 enters src/io other than through src/io/index.ts',
      'src/stray.ts:1 is in no level of docs/ARCHITECTURE.md',
      'tools/bench.ts:1 enters src/engine other than through src/engine/index.ts',
    ]);
  });
});
