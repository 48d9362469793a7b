// The kernel set's programs, one object per cache key: each getter makes a program (plain data that emits its WGSL,
// wgslProgram.ts) the first time its key is asked for and hands out the same object after, so the runner compiles
// each pipeline once. Also which programs a 2-way plan of a kernel family needs, and which a whole run needs
// (previewPrograms: what prepareStart compiles ahead of the run's first request).

import type { PlanePair, RunPreview, TermGroup } from '../../../contract.js';
import type { HistogramLayout } from '../../../../core/histogramLayout.js';
import type { TripleFinalizeValues } from '../../../tripleFinalize.js';
import { createExpandProgram } from './expandProgram.js';
import { createPairProductProgram } from './pairProductProgram.js';
import { createTally2Program, type Tally2Program } from './tally2Program.js';
import { createU8GemmProgram, type U8GemmProgram, type U8GemmStaging } from './u8GemmProgram.js';
import { createUnpackPlanesProgram, packedPlaneRowsOf } from './unpackPlanesProgram.js';
import { createVectorSumsProgram } from './vectorSumsProgram.js';
import type { WgslProgram } from './wgslProgram.js';
import { createFinalize3Program, finalize3CacheKey, type Finalize3Program } from '../finalize/finalize3Program.js';
import { factoredParts, type KernelFamily } from '../plan/kernelChoice.js';
import { disjointGroupsOf } from '../plan/disjointGroups.js';
import { chooseTally2Geometry } from '../plan/tally2Geometry.js';
import type { GpuCapabilities } from '../runtime/gpuAdapter.js';

/** What previewPrograms asks of the kernel set besides the library. */
export interface PreviewChoices {
  /**
   * The kernel family of 2-way requests with these groups on planes of `wordsPerPlane` words (`disjoint`: per group,
   * whether its products are disjoint by the operands' code tables; none when not known).
   */
  familyOf(termGroups: readonly TermGroup[], wordsPerPlane: number, disjoint?: readonly boolean[]): KernelFamily;
  /** The programs of 2-way device finalize (the kernel set's finalize2Program and record programs). */
  pairFinalizePrograms(deviceFinalize: Extract<NonNullable<RunPreview['deviceFinalize']>, { kind: 'pairs' }>): WgslProgram[];
}

/** The programs of one kernel set, made once per cache key. */
export class ProgramLibrary {
  private readonly programs = new Map<string, WgslProgram>();

  /** `u8Staging`: the workgroup-memory staging of the tensor-core kernel. */
  constructor(private readonly capabilities: GpuCapabilities, private readonly u8Staging: U8GemmStaging) {}

  /** The program of `key`, made by `make` the first time. */
  cached<P extends WgslProgram>(key: string, make: () => P): P {
    let program = this.programs.get(key) as P | undefined;
    if (program === undefined) {
      program = make();
      this.programs.set(key, program);
    }
    return program;
  }

  /** The bitwise tally program of these groups on operands of numPlanesA and numPlanesB planes (tiled for the device). */
  tally2(termGroups: readonly TermGroup[], numPlanesA: number, numPlanesB: number, disjointGroups: readonly boolean[] = []): Tally2Program {
    const disjoint = termGroups.map((_g, g) => disjointGroups[g] === true);
    return this.cached(`tally2/${numPlanesA}/${numPlanesB}/${JSON.stringify(termGroups)}/${disjoint.map(Number).join('')}`, () => {
      const geometry = chooseTally2Geometry(termGroups.length, numPlanesA, numPlanesB, this.capabilities);
      return createTally2Program({ termGroups, numPlanesA, numPlanesB, geometry, disjointGroups: disjoint });
    });
  }

  /** The u8 integer GEMM of a family (tensor cores or dot4), with the set's staging. */
  u8Gemm(family: 'subgroup-matrix' | 'dot4'): U8GemmProgram {
    return this.cached(`u8gemm/${family}`, () => createU8GemmProgram(family, this.u8Staging));
  }

  /** The expansion of an operand of numPlanes planes into u8 counts of `planes`. */
  expand(numPlanes: number, planes: readonly number[]): WgslProgram {
    return this.cached(`expand/${numPlanes}/${planes.join('.')}`, () => createExpandProgram(numPlanes, planes));
  }

  /** The per-vector sums of count planes (and mask plane) of an operand of numPlanes planes. */
  vectorSums(numPlanes: number, planes: RunPreview['vectorSums']): WgslProgram {
    const { countPlanes, maskPlane } = planes;
    return this.cached(`vectorSums/${numPlanes}/${countPlanes.join('.')}/${maskPlane ?? '-'}`,
      () => createVectorSumsProgram(numPlanes, countPlanes, maskPlane));
  }

  /** The pair products (x AND y) of `pairs` of planes, built on the GPU. */
  pairProduct(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram {
    const key = `pairProduct/${numPlanesX}/${numPlanesY}/${pairs.map(([p, q]) => `${p}.${q}`).join('+')}`;
    return this.cached(key, () => createPairProductProgram(numPlanesX, numPlanesY, pairs));
  }

  /** The 3-way device finalize program of formulas (dense or sparse) or a value program, counting a histogram or not. */
  finalize3(values: TripleFinalizeValues, histogram: HistogramLayout | null = null): Finalize3Program {
    return this.cached(finalize3CacheKey(values, histogram), () => createFinalize3Program({ values, histogram }));
  }

  /** The programs of a 2-way plan of `family` (the plan waits for them; prepareStart compiles them ahead). */
  gemmPrograms(family: KernelFamily, termGroups: readonly TermGroup[], numPlanesA: number, numPlanesB: number): WgslProgram[] {
    if (family === 'bitwise') return [this.tally2(termGroups, numPlanesA, numPlanesB)];
    return [this.u8Gemm(family), ...termGroups.flatMap((g) => {
      const parts = factoredParts(g, false);
      if (parts === null) throw new Error('u8 kernels need groups of factored parts');
      return parts.flatMap((f) => [this.expand(numPlanesA, f.aPlanes), this.expand(numPlanesB, f.bPlanes)]);
    })];
  }

  /** Every program the requests of `preview` use (the plans of its 2-way and 3-way requests, its finalize). */
  previewPrograms(preview: RunPreview, choices: PreviewChoices): WgslProgram[] {
    const { numPlanes, wordsPerPlane, pairTermGroups, triples, deviceFinalize } = preview;
    const packedRows = packedPlaneRowsOf(preview);
    const programs: WgslProgram[] = [this.vectorSums(numPlanes, preview.vectorSums), ...(packedRows === null ? [] : [createUnpackPlanesProgram(packedRows)])];
    const addGemm = (termGroups: readonly TermGroup[], numPlanesA: number, disjoint: readonly boolean[] = []): void => {
      if (termGroups.every((g) => g.length === 0)) return;
      programs.push(...this.gemmPrograms(choices.familyOf(termGroups, wordsPerPlane, disjoint), termGroups, numPlanesA, numPlanes));
    };
    if (deviceFinalize?.kind === 'pairs') programs.push(...choices.pairFinalizePrograms(deviceFinalize));
    if (deviceFinalize?.kind === 'triples') programs.push(this.finalize3(deviceFinalize.values, deviceFinalize.histogram ?? null));
    // Blocks held as codes of this table take the bitwise kernel with their disjoint groups fused.
    const codeTable = preview.codeTable ?? null;
    const disjoint = pairTermGroups !== null && codeTable !== null ? disjointGroupsOf(pairTermGroups, codeTable, codeTable) : [];
    if (pairTermGroups !== null) addGemm(pairTermGroups, numPlanes, disjoint);
    if (pairTermGroups !== null && disjoint.some((d) => d) && choices.familyOf(pairTermGroups, wordsPerPlane, disjoint) === 'bitwise') {
      programs.push(this.tally2(pairTermGroups, numPlanes, numPlanes, disjoint));
    }
    if (triples !== null) {
      programs.push(this.pairProduct(numPlanes, numPlanes, triples.planePairs));
      addGemm(triples.termGroups, triples.planePairs.length);
    }
    return programs;
  }
}
