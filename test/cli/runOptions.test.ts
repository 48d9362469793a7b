// buildRunPlan: defaults and the JobSpec built from options, without running anything.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAM } from '../../src/core/types.js';
import { DEFAULT_NUM_FIELD, DEFAULT_NUM_VECTOR, buildRunPlan } from '../../src/cli/runOptions.js';
import { parseThresholdOption } from '../../src/cli/thresholdOption.js';

describe('buildRunPlan', () => {
  it('defaults to a random 2-way CCC problem on one rank with every phase and stage', () => {
    const { spec, json } = buildRunPlan({}, 3);
    expect(json).toBe(false);
    expect(spec.metricSpec).toEqual({ metric: 'ccc', numWay: 2, sparse: false, param: DEFAULT_PARAM, multiplier: 4.5 });
    expect(spec.numVector).toBe(DEFAULT_NUM_VECTOR);
    expect(spec.numField).toBe(DEFAULT_NUM_FIELD);
    expect(spec.source).toEqual({ kind: 'random' });
    expect(spec.decomposition).toEqual({
      numProcVector: 1, numProcField: 1, numProcRepl: 1,
      numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows',
    });
    expect(spec.threshold).toEqual({ kind: 'none' });
    expect(spec.outputStub).toBeNull();
    expect(spec).toMatchObject({ force: false, singlePrecisionOutput: false, backend: 'cpu', numThreads: 3, verify: false });
  });

  it('builds a file job with a grid, phase slice, threshold and DUO multiplier', () => {
    const { spec, json } = buildRunPlan({
      metric: 'duo', way: '3', input: 'in.bin', vectors: '36', fields: '100', sparse: true,
      threshold: '0.25', duoMultiplier: '3.5', cccParam: '0.5', npv: '3', npf: '2', npr: '2', ranks: '12',
      phases: '4', phaseMin: '1', stages: '5', stageMax: '3', backend: 'ref', threads: '8',
      output: 'out/run', force: true, singlePrecision: true, json: true,
    }, 2);
    expect(json).toBe(true);
    expect(spec.metricSpec).toEqual({ metric: 'duo', numWay: 3, sparse: true, param: 0.5, multiplier: 3.5 });
    expect(spec.source).toEqual({ kind: 'file', path: 'in.bin' });
    expect(spec.decomposition).toEqual({
      numProcVector: 3, numProcField: 2, numProcRepl: 2,
      numPhase: 4, phaseMin: 1, phaseMax: 3, numStage: 5, stageMin: 0, stageMax: 3, halfDiagonal: 'lower-rows',
    });
    expect(spec.threshold).toEqual({ kind: 'single', value: 0.25 });
    expect(spec).toMatchObject({
      outputStub: 'out/run', force: true, singlePrecisionOutput: true, backend: 'ref', numThreads: 8,
    });
  });

  it('takes SPEC §6\'s lower-rows half-diagonal plan by default, split when asked (2-way only)', () => {
    expect(buildRunPlan({ npv: '2' }, 1).spec.decomposition.halfDiagonal).toBe('lower-rows');
    expect(buildRunPlan({ npv: '2', halfDiagonal: 'split' }, 1).spec.decomposition.halfDiagonal).toBe('split');
    expect(buildRunPlan({ npv: '3', halfDiagonal: 'lower-rows' }, 1).spec.decomposition.halfDiagonal).toBe('lower-rows');
    // Odd npv has no half diagonal: split is accepted and changes nothing (the plan is the same).
    expect(buildRunPlan({ npv: '3', halfDiagonal: 'split' }, 1).spec.decomposition.halfDiagonal).toBe('split');
    expect(() => buildRunPlan({ way: '3', halfDiagonal: 'split' }, 1)).toThrow(/--half-diagonal applies to --way 2 only/);
    expect(() => buildRunPlan({ way: '3', halfDiagonal: 'lower-rows' }, 1)).toThrow(/--half-diagonal applies to --way 2 only/);
    expect(() => buildRunPlan({ halfDiagonal: 'columns' }, 1)).toThrow(/--half-diagonal must be one of lower-rows, split/);
  });

  it('accepts the GPU backends webgpu and auto', () => {
    expect(buildRunPlan({ backend: 'webgpu' }, 1).spec.backend).toBe('webgpu');
    expect(buildRunPlan({ backend: 'auto' }, 1).spec.backend).toBe('auto');
  });

  it('finalizes where the run allows by default, on the host with --finalize host, and refuses other places', () => {
    expect(buildRunPlan({}, 1).spec.finalize).toBe('auto');
    expect(buildRunPlan({ finalize: 'host' }, 1).spec.finalize).toBe('host');
    expect(() => buildRunPlan({ finalize: 'gpu' }, 1)).toThrow(/--finalize/);
  });

  it('treats a negative threshold as no threshold, like CoMet', () => {
    expect(buildRunPlan({ threshold: '-1' }, 1).spec.threshold).toEqual({ kind: 'none' });
    expect(buildRunPlan({ threshold: '0' }, 1).spec.threshold).toEqual({ kind: 'single', value: 0 });
  });

  it('accepts --verify with the analytic problem', () => {
    expect(buildRunPlan({ problem: 'analytic', verify: true }, 1).spec.verify).toBe(true);
  });
});

describe('parseThresholdOption', () => {
  it('reads the single and per-entry forms', () => {
    expect(parseThresholdOption(undefined, 2)).toEqual({ kind: 'none' });
    expect(parseThresholdOption('0.5', 3)).toEqual({ kind: 'single', value: 0.5 });
    expect(parseThresholdOption('0.1,0.2,0.3,0.4', 2))
      .toEqual({ kind: 'multi2', tLL: 0.1, tLH: 0.2, tHH: 0.3, tLLHH: 0.4 });
    expect(parseThresholdOption('1,2,3,4,5', 3))
      .toEqual({ kind: 'multi3', tLLL: 1, tLLH: 2, tLHH: 3, tHHH: 4, tLLLHHH: 5 });
    expect(parseThresholdOption('-1,-1,-1,-1', 2)).toEqual({ kind: 'none' });
  });
});
