// The analysis registry: each built-in analysis loads on demand by name, and the results its catalogue declares
// (read by the refusals of --top and --matrix without loading every analysis) are the ones its module declares.
import { describe, expect, it } from 'vitest';
import { analysesWithResult, ANALYSIS_NAMES, loadAnalysis, loadBuiltInAnalysis } from '../../src/analyses/index.js';
import type { ResultKind } from '../../src/analyses/index.js';
import { UserError } from '../../src/core/errors.js';

const RESULT_KINDS: readonly ResultKind[] = ['threshold-records', 'dense-matrix', 'histogram', 'top-n'];

describe('analysis registry', () => {
  it('loads every built-in analysis under its own name, once per thread', async () => {
    for (const name of ANALYSIS_NAMES) {
      const analysis = await loadBuiltInAnalysis(name);
      expect(analysis.name).toBe(name);
      expect(await loadAnalysis({ name, moduleUrl: null })).toBe(analysis);
    }
  });

  it('the catalogue\'s results are the modules\' own', async () => {
    const analyses = await Promise.all(ANALYSIS_NAMES.map((name) => loadBuiltInAnalysis(name)));
    for (const kind of RESULT_KINDS) {
      expect(analysesWithResult(kind)).toEqual(analyses.filter((a) => a.results.includes(kind)).map((a) => a.name));
    }
  });

  it('an unknown name is a one-line UserError naming the choices', async () => {
    await expect(loadBuiltInAnalysis('nope')).rejects.toThrow(UserError);
    await expect(loadBuiltInAnalysis('nope')).rejects.toThrow(`unknown metric 'nope' (choose ${ANALYSIS_NAMES.join(', ')})`);
  });
});
