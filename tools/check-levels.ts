// Checks the module levels of docs/ARCHITECTURE.md: no module imports from a higher level, and other
// folders are entered only through their index.ts (src/core files may be imported directly).
//
// Usage: node dist/tools/check-levels.js [repoRoot]   — exit status 1 and one line per violation if any.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { createToolProgram, parseToolOptions } from './lib/cliOptions.js';

/** One folder of the level table, e.g. `{ folder: 'src/io', level: 2 }`. */
export interface LevelModule {
  readonly folder: string;
  readonly level: number;
}

/** One import that breaks the rules. `file` is relative to the repository root, `line` 1-based. */
export interface LevelViolation {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  readonly reason: string;
}

/** What `checkLevels` looks at. */
export interface CheckLevelsOptions {
  /** Folders whose .ts files are checked (default: src, tools, examples). */
  readonly scanFolders?: readonly string[];
  /** Folders skipped while scanning (default: the AssemblyScript sources, which tsc never compiles). */
  readonly excludedFolders?: readonly string[];
}

const ARCHITECTURE_DOC = 'docs/ARCHITECTURE.md';
const DEFAULT_SCAN_FOLDERS = ['src', 'tools', 'examples'];
const DEFAULT_EXCLUDED_FOLDERS = ['src/mgemm/kernels/wasm/assembly'];
/** The one folder whose files may be imported directly: its files are small, independent leaves. */
const OPEN_FOLDER = 'src/core';

/**
 * Reads the level table of docs/ARCHITECTURE.md: indented lines `<level> <folder>[, <folder>…]  <text>`.
 * @throws Error when no such line is found (the document changed shape).
 */
export function parseLevelTable(architectureText: string): LevelModule[] {
  const modules: LevelModule[] = [];
  const tableLine = /^ {2,}(\d+) +([a-z][\w./-]*(?:, *[a-z][\w./-]*)*)(?: {2,}.*)?$/i;
  for (const line of architectureText.split('\n')) {
    const match = tableLine.exec(line);
    if (match === null) continue;
    for (const folder of match[2].split(',')) modules.push({ folder: folder.trim(), level: Number(match[1]) });
  }
  if (modules.length === 0) throw new Error(`no level table found in ${ARCHITECTURE_DOC}`);
  return modules;
}

/** Checks every .ts file of the scanned folders of `rootDir`; returns the violations, sorted by file and line. */
export function checkLevels(rootDir: string, options: CheckLevelsOptions = {}): LevelViolation[] {
  const modules = parseLevelTable(readFileSync(join(rootDir, ARCHITECTURE_DOC), 'utf8'));
  const excluded = options.excludedFolders ?? DEFAULT_EXCLUDED_FOLDERS;
  const violations: LevelViolation[] = [];
  for (const folder of options.scanFolders ?? DEFAULT_SCAN_FOLDERS) {
    for (const file of listTypeScriptFiles(rootDir, folder, excluded)) {
      violations.push(...checkFile(rootDir, file, modules));
    }
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

function checkFile(rootDir: string, file: string, modules: readonly LevelModule[]): LevelViolation[] {
  const source = moduleOf(file, modules);
  if (source === undefined) {
    return [{ file, line: 1, specifier: '', reason: `is in no level of ${ARCHITECTURE_DOC}` }];
  }
  const text = readFileSync(join(rootDir, file), 'utf8');
  const violations: LevelViolation[] = [];
  for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
    const specifier = imported.fileName;
    if (!specifier.startsWith('.')) continue; // packages and node: builtins have no level
    const target = toPosix(relative(rootDir, resolve(rootDir, dirname(file), specifier))).replace(/\.js$/, '.ts');
    const reason = importProblem(source, target, moduleOf(target, modules));
    if (reason !== null) {
      const line = text.slice(0, imported.pos).split('\n').length;
      violations.push({ file, line, specifier, reason });
    }
  }
  return violations;
}

/** Why importing `target` (in module `targetModule`) from module `source` is not allowed, or null. */
function importProblem(source: LevelModule, target: string, targetModule: LevelModule | undefined): string | null {
  if (targetModule === undefined || targetModule.folder === source.folder) return null;
  const where = `${targetModule.folder} (level ${targetModule.level}) from ${source.folder} (level ${source.level})`;
  if (targetModule.level > source.level) return `imports upward: ${where}`;
  if (targetModule.folder !== OPEN_FOLDER && target !== `${targetModule.folder}/index.ts`) {
    return `enters ${targetModule.folder} other than through ${targetModule.folder}/index.ts`;
  }
  return null;
}

/** The module a repository-relative path belongs to: the longest folder of the table that contains it. */
function moduleOf(path: string, modules: readonly LevelModule[]): LevelModule | undefined {
  let best: LevelModule | undefined;
  for (const module of modules) {
    const inside = path === module.folder || path.startsWith(`${module.folder}/`);
    if (inside && (best === undefined || module.folder.length > best.folder.length)) best = module;
  }
  return best;
}

function listTypeScriptFiles(rootDir: string, folder: string, excluded: readonly string[]): string[] {
  const directory = join(rootDir, folder);
  if (!existsSync(directory) || excluded.includes(folder)) return [];
  const files: string[] = [];
  for (const name of readdirSync(directory).sort()) {
    const path = `${folder}/${name}`;
    if (statSync(join(rootDir, path)).isDirectory()) {
      files.push(...listTypeScriptFiles(rootDir, path, excluded));
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      files.push(path);
    }
  }
  return files;
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}

/** The repository root: the nearest directory above this file with a package.json. */
function findRepoRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error('no package.json above tools/check-levels');
    directory = parent;
  }
  return directory;
}

function main(): number {
  const program = createToolProgram('check-levels', `checks the module levels of ${ARCHITECTURE_DOC}`)
    .argument('[repoRoot]', 'repository to check (default: the one holding this tool)');
  parseToolOptions(program);
  const rootDir = resolve(program.args.at(0) ?? findRepoRoot());
  const violations = checkLevels(rootDir);
  for (const v of violations) {
    process.stderr.write(`${v.file}:${v.line}: ${v.specifier ? `'${v.specifier}' ` : ''}${v.reason}\n`);
  }
  if (violations.length > 0) {
    process.stderr.write(`check-levels: ${violations.length} violation(s) of ${ARCHITECTURE_DOC}\n`);
    return 1;
  }
  process.stdout.write(`check-levels: ok (${ARCHITECTURE_DOC})\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main();
}
