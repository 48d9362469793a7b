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
      { folder: 'mgemm', level: 2 },
      { folder: 'src/io', level: 2 },
      { folder: 'parallel', level: 3 },
      { folder: 'src/engine', level: 4 },
      { folder: 'src/cli', level: 5 },
      { folder: 'tools', level: 5 },
      { folder: 'examples', level: 5 },
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
      "import { plan } from '../../parallel/index.js';\n" +
      "import { kernel } from '../../mgemm/index.js';\n" + // same level, through its index: allowed
      "import { pack } from '../../mgemm/packing.js';\n");
    write('mgemm/index.ts', "export const kernel = 1;\nimport fs from 'node:fs';\n");
    write('mgemm/kernels/wasm/assembly/k.ts', "import '../../../../src/cli/main.js';\n");
    write('parallel/index.ts', "export const plan = 1;\n");
    write('parallel/plan.ts',
      "import { kernel } from '../mgemm/index.js';\n" +
      "import { read } from '../src/io/reader.js';\n" +
      "import { x } from '../src/core/types.js';\n");
    write('src/engine/run.ts', "const cli = await import('../cli/main.js');\n");
    write('src/stray.ts', 'export {};\n');

    const found = checkLevels(root).map((v) => `${v.file}:${v.line} ${v.reason}`);
    expect(found).toEqual([
      'parallel/plan.ts:2 enters src/io other than through src/io/index.ts',
      'src/engine/run.ts:1 imports upward: src/cli (level 5) from src/engine (level 4)',
      'src/io/reader.ts:2 imports upward: parallel (level 3) from src/io (level 2)',
      'src/io/reader.ts:4 enters mgemm other than through mgemm/index.ts',
      'src/stray.ts:1 is in no level of docs/ARCHITECTURE.md',
    ]);
  });
});
