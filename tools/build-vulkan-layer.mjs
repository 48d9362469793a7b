// Builds the Vulkan layer that numbers GPUs (mgemm/kernels/webgpu/gpuIndexLayer) into build/vulkan/:
// libVkLayer_snptally_gpu_index.so and its manifest. Run by `npm run build:vulkan-layer`.
//
// The layer is what lets each rank take its own GPU when a host has several of one model. Without a C
// compiler or the Vulkan headers (Debian: libvulkan-dev) the script writes build/vulkan/UNAVAILABLE
// with the reason and succeeds: every rank then uses the first GPU, and runs say so.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './addonBuild.mjs';

const LABEL = 'build:vulkan-layer';
const sourceDir = path.join(repoRoot, 'src/mgemm/kernels/webgpu/runtime/gpuIndexLayer');
const source = path.join(sourceDir, 'gpuIndexLayer.c');
const manifestName = 'VkLayer_snptally_gpu_index.json';
const outDir = path.join(repoRoot, 'build/vulkan');
const library = path.join(outDir, 'libVkLayer_snptally_gpu_index.so');
const unavailable = path.join(outDir, 'UNAVAILABLE');

const newest = Math.max(statSync(source).mtimeMs, statSync(path.join(sourceDir, manifestName)).mtimeMs);
if (existsSync(library) && existsSync(path.join(outDir, manifestName)) && statSync(library).mtimeMs >= newest) {
  console.log(`${LABEL}: ${path.relative(repoRoot, library)} is up to date`);
  process.exit(0);
}
mkdirSync(outDir, { recursive: true });
rmSync(library, { force: true });
rmSync(unavailable, { force: true });

const skip = (reason) => {
  writeFileSync(unavailable, `${reason}\n`);
  console.warn(`${LABEL}: skipped, every rank will use the first GPU: ${reason}`);
  process.exit(0);
};
const cc = spawnSync('cc', ['--version'], { encoding: 'utf8' });
if (cc.error !== undefined || cc.status !== 0) skip('no C compiler (cc) when snptally was built');
const header = spawnSync('cc', ['-E', '-x', 'c', '-'], { input: '#include <vulkan/vk_layer.h>\n', encoding: 'utf8' });
if (header.status !== 0) skip('no Vulkan headers (vulkan/vk_layer.h; Debian: apt-get install libvulkan-dev) when snptally was built');

const compile = spawnSync('cc', [
  '-std=c11', '-O2', '-Wall', '-Wextra', '-Werror', '-fPIC', '-shared', '-fvisibility=hidden',
  '-o', library, source, '-lpthread',
], { stdio: 'inherit' });
if (compile.status !== 0) {
  console.error(`${LABEL}: the compile failed (a compiler and the headers are present, so this is an error)`);
  process.exit(1);
}
copyFileSync(path.join(sourceDir, manifestName), path.join(outDir, manifestName));
console.log(`${LABEL}: ${path.relative(repoRoot, library)}`);
