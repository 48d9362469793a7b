// Compiles the AssemblyScript kernels (mgemm/kernels/wasm/assembly) into build/wasm/*.wasm.
// Run by `npm run build:wasm`; the loader in mgemm/kernels/wasm/wasmModule.ts reads the output.

import asc from 'assemblyscript/asc';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Each wasm module: its AssemblyScript entry file and output file, relative to the repo root, and extra compiler
 * flags. The min-plus module uses 128-bit SIMD (f64x2 / f32x4); a runtime without it fails to compile that module,
 * and the min-plus kernel set then falls back to its JavaScript kernels.
 */
const wasmModules = [
  { entry: 'src/mgemm/kernels/wasm/assembly/index.ts', outFile: 'build/wasm/popcountGemm.wasm', flags: [] },
  { entry: 'src/mgemm/kernels/wasm/assembly/minplus/index.ts', outFile: 'build/wasm/minPlusGemm.wasm', flags: ['--enable', 'simd'] },
];

for (const { entry, outFile, flags } of wasmModules) {
  await mkdir(path.join(repoRoot, path.dirname(outFile)), { recursive: true });
  const { error, stderr } = await asc.main(
    [
      entry,
      '--baseDir', repoRoot,
      '--outFile', outFile,
      '--optimizeLevel', '3',
      '--noAssert',
      // No allocator or GC: the driver manages linear memory itself from heapBase() on.
      '--runtime', 'stub',
      // No `env.abort` import: the module is instantiated with no imports at all.
      '--use', 'abort=',
      ...flags,
    ],
    { stderr: process.stderr, stdout: process.stdout },
  );
  if (error) {
    process.stderr.write(String(stderr));
    console.error(`build-wasm: ${entry} failed: ${error.message}`);
    process.exit(1);
  }
  console.log(`build-wasm: ${outFile}`);
}
