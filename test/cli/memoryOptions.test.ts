// `run` refuses, before any work, jobs that would not fit in memory or start too many threads, in one line each;
// a normal run prints its memory estimate.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `run ...args --output <stub>`; checks a quick one-line refusal that left no file, and returns its line. */
function refusal(args: readonly string[]): string {
  const stub = join(dir, 'out');
  const start = performance.now();
  const outcome = runCli(['run', ...args, '--output', stub]);
  const seconds = (performance.now() - start) / 1000;
  expect(outcome.status, outcome.stdout).toBe(1);
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  // Refused before any rank starts: no block is built (these would take minutes or fail), nothing is written.
  expect(seconds).toBeLessThan(20);
  expect(readdirSync(dir)).toEqual([]);
  expect(outcome.stdout).toBe('');
  return lines[0];
}

describe('run refuses jobs that do not fit', () => {
  it('a block larger than the memory', () => {
    const line = refusal(['--vectors', '2147483648', '--fields', '8']);
    expect(line).toMatch(/^snptally: estimated peak host memory \d+\.\d GiB exceeds the (MemAvailable|free memory) of .*own block 64\.0 GiB.*--npv/);
  });

  it('in-process ranks that together exceed it', () => {
    expect(refusal(['--vectors', '200000000', '--fields', '8', '--npv', '100'])).toMatch(/estimated peak host memory .*received blocks/);
  });

  it('more memory than --memory allows', () => {
    expect(refusal(['--vectors', '200', '--fields', '500', '--memory', '10'])).toMatch(/exceeds --memory 10 MiB .*raise --memory$/);
  });

  it('too many threads or in-process ranks', () => {
    expect(refusal(['--vectors', '200', '--fields', '500', '--threads', '4000'])).toMatch(/^snptally: --threads 4000 is more than \d+ .*give fewer --threads$/);
    expect(refusal(['--vectors', '100000', '--fields', '8', '--npv', '2000'])).toMatch(/2000 ranks .* mpirun$/);
  });

  it('bad values of the options', () => {
    expect(refusal(['--memory', '0'])).toMatch(/--memory must be a positive integer/);
    expect(refusal(['--device-memory', 'lots'])).toMatch(/--device-memory must be a positive integer/);
  });
});

describe('run reports its memory estimate', () => {
  it('in the summary and in --json, and still runs', () => {
    const text = runCli(['run', '--vectors', '48', '--fields', '100', '--memory', '100000']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^metrics checksum 0-34600668891914-795881718560018816 /);
    expect(text.stdout).toMatch(/\nmemory estimated host \d+ MiB \(limit 100000 MiB\)\n/);
    const json = runCli(['run', '--vectors', '48', '--fields', '100', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(report.checksum).toBe('0-34600668891914-795881718560018816');
    expect(report.estimatedHostBytes).toBeGreaterThan(50 * 2 ** 20);
    expect(report.hostMemoryLimitBytes).toBeGreaterThan(0);
    expect(report.estimatedDeviceBytes).toBeNull();
    expect(report.deviceMemoryLimitBytes).toBeNull();
  });
});
