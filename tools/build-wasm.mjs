// Compiles the AssemblyScript kernels (mgemm/kernels/wasm/assembly) into build/wasm/*.wasm.
// Run by `npm run build:wasm`; the loader in mgemm/kernels/wasm/wasmModule.ts reads the output.

import asc from 'assemblyscript/asc';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each wasm module: its AssemblyScript entry file and output file, relative to the repo root. */
const wasmModules = [
  { entry: 'src/mgemm/kernels/wasm/assembly/index.ts', outFile: 'build/wasm/popcountGemm.wasm' },
];

for (const { entry, outFile } of wasmModules) {
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
