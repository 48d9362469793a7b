// Bundles the compiled CLI (dist/src/cli/main.js) and every module a thread starts from into dist/bundle/ (esbuild,
// ESM with code splitting, so `import()`s stay lazy as shared chunks): a process then loads a handful of files instead
// of some 300 modules, on the main thread and again in each worker. Run by `npm run build` after tsc; the package's
// `bin` is dist/bundle/main.js. dist/src stays as it is (the library's exports, tests).
//
// Where a module names a file relative to itself (`new URL('…', import.meta.url)`: native addons, wasm, the Vulkan
// layer, package.json), its `import.meta.url` is rewritten to its own dist/src URL, so those files are found as
// before. Where it names another module that a thread starts from or imports by URL (a worker, a task guest, a rank
// entry), that module is an entry point of the bundle and the URL names the bundled entry instead (all outputs lie in
// dist/bundle/, so `./<name>.js` relative to any output file is the entry) — one copy of each module per thread.
// dist/bundle-meta.json (esbuild's metafile, not packed) says which modules each output file holds.
//
//   node tools/bundle.mjs              bundles
//   node tools/bundle.mjs --if-stale   bundles only where a dist/src module is newer than the bundle (after a `tsc`; the
//                                      test suite's global setup and the bench tools run this)
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distSource = path.join(repoRoot, 'dist/src');
const outDir = path.join(repoRoot, 'dist/bundle');
const metaFile = path.join(repoRoot, 'dist/bundle-meta.json');
const CLI_MAIN = path.join(distSource, 'cli/main.js');

/** `new URL('./x.js', import.meta.url)` with a relative .js module path. */
const MODULE_URL = /new URL\((['"])(\.{1,2}\/[^'"]+\.js)\1, import\.meta\.url\)/g;

function compiledModules(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return compiledModules(full);
    return entry.name.endsWith('.js') ? [full] : [];
  });
}

/** The modules named by URL from other modules (thread and guest entries), and the CLI's main. */
function entryModules(modules) {
  const entries = new Set([CLI_MAIN]);
  for (const file of modules) {
    for (const match of readFileSync(file, 'utf8').matchAll(MODULE_URL)) {
      const target = path.resolve(path.dirname(file), match[2]);
      if (existsSync(target)) entries.add(target);
    }
  }
  const byName = new Map();
  for (const entry of entries) {
    const name = path.basename(entry);
    if (byName.has(name)) throw new Error(`bundle: entries ${byName.get(name)} and ${entry} share the name ${name}`);
    byName.set(name, entry);
  }
  return [...entries];
}

/** The onLoad rewrite of one module (see the header). */
function rewriteModuleUrls(file, source, entries) {
  // Entry URLs are relative to the output file (OUTPUT_URL, put back last); every other import.meta.url is the module's own.
  const OUTPUT_URL = '__bundleOutputUrl';
  const withEntries = source.replace(MODULE_URL, (whole, quote, relative) => {
    const target = path.resolve(path.dirname(file), relative);
    return entries.has(target) ? `new URL(${quote}./${path.basename(target)}${quote}, ${OUTPUT_URL})` : whole;
  });
  const rewritten = withEntries.replaceAll('import.meta.url', '__moduleUrl').replaceAll(OUTPUT_URL, 'import.meta.url');
  if (!withEntries.includes('import.meta.url')) return rewritten;
  const ownUrl = `new URL(${JSON.stringify(path.relative(outDir, file).split(path.sep).join('/'))}, import.meta.url).href`;
  return `const __moduleUrl = ${ownUrl};\n${rewritten}`;
}

/** Whether the bundle is missing or older than a module it is made of. */
function isStale(modules) {
  if (!existsSync(metaFile)) return true;
  const bundledAt = statSync(metaFile).mtimeMs;
  return modules.some((file) => statSync(file).mtimeMs > bundledAt);
}

const modules = compiledModules(distSource);
if (process.argv.includes('--if-stale') && !isStale(modules)) process.exit(0);
const entries = new Set(entryModules(modules));
// Built beside the bundle and swapped in, so that a process starting meanwhile finds one whole bundle or the other.
const buildDir = `${outDir}.building-${process.pid}`;
rmSync(buildDir, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: [...entries],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: buildDir,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  // Dependencies stay in node_modules (loading commander as one package costs no more than bundled; webgpu and
  // msgpackr load native code of their own).
  packages: 'external',
  // Error classes and kernels are told apart by name in places; scope hoisting would rename clashing ones.
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [{
    name: 'module-urls',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(distSource + path.sep)) return undefined;
        return { contents: rewriteModuleUrls(args.path, readFileSync(args.path, 'utf8'), entries), loader: 'js' };
      });
    },
  }],
});
const oldDir = `${outDir}.old-${process.pid}`;
if (existsSync(outDir)) renameSync(outDir, oldDir);
renameSync(buildDir, outDir);
rmSync(oldDir, { recursive: true, force: true });
// Output files by their name in dist/bundle, each with the dist/src modules it holds (relative to dist/src).
const outputs = Object.fromEntries(Object.entries(metafile.outputs).map(([output, { inputs }]) => [
  path.basename(output),
  Object.keys(inputs).map((input) => path.relative(distSource, path.resolve(repoRoot, input)).split(path.sep).join('/')),
]));
writeFileSync(metaFile, `${JSON.stringify({ outputs }, null, 1)}\n`);
