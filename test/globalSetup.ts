// Global setup of the test suite: the bundled CLI that some CLI tests run is rebuilt where dist/src is newer, once,
// before test files run side by side (so that none of them rebuilds it while another runs it).
import { ensureBundleFresh } from '../tools/lib/bundledCli.js';

export function setup(): void {
  ensureBundleFresh();
}
