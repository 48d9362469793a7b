// Benchmark of the native kernel's layouts (horizontal, vertical, amx, auto) on one thread, on the request shapes
// of snptally's analyses: KING (four groups, a fused disjoint pair), dense CCC (one group of four terms) and 2-way
// epistasis (eight one-term groups over class word ranges), all pairs of --vectors vectors cut into tasks of
// --task-rows rows as the CPU kernel set cuts a panel (one thread runs them in turn). Prints ns per pair of each
// layout (and with --complement, of each choice of src/complementTerms.cc's sparse correction; the operands named, as the
// CPU kernel set names them); used to fit the cost model of src/mgemm/kernels/native/src/layoutChoice.cc.
// Usage: node dist/tools/bench-native-layouts.js [--shape king,ccc,epistasis] [--vectors 512] [--fields 50000]
//   [--task-rows 128] [--reps 3] [--layout horizontal,vertical,amx,auto] [--complement auto,never,always]
import { performance } from 'node:perf_hooks';
import {
  allocatePlaneMatrix, loadNativePopcountKernel, type NativeKernelLayout, type PlaneMatrix, type PlaneWordRange,
  type NativeComplementChoice, type PopcountGemmRequest, type TermGroup,
} from '../src/mgemm/index.js';
import { choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

const SHAPES = ['king', 'ccc', 'epistasis'] as const;
type Shape = (typeof SHAPES)[number];

interface BenchLayoutsOptions {
  readonly shape: readonly Shape[];
  readonly vectors: number;
  readonly fields: number;
  readonly taskRows: number;
  readonly reps: number;
  readonly layout: readonly NativeKernelLayout[];
  readonly complement: readonly NativeComplementChoice[];
}

function parseOptions(): BenchLayoutsOptions {
  const program = createToolProgram('bench-native-layouts', 'ns per pair of each native kernel layout on one thread')
    .addOption(valueOption('--shape <list>', 'request shapes, comma-separated', listOf(choiceOf(SHAPES)), 'king,ccc,epistasis'))
    .addOption(valueOption('--vectors <n>', 'vectors of both operands (all pairs, strict upper triangle)', parsePositiveInteger, '512'))
    .addOption(valueOption('--fields <n>', 'fields (SNPs or samples) per vector', parsePositiveInteger, '50000'))
    .addOption(valueOption('--task-rows <n>', 'rows per task (the strict upper triangle cut into row panels)', parsePositiveInteger, '128'))
    .addOption(valueOption('--reps <n>', 'timed runs of each layout, the best kept', parsePositiveInteger, '3'))
    .addOption(valueOption('--layout <list>', 'layouts, comma-separated', listOf(choiceOf(['horizontal', 'vertical', 'amx', 'auto'] as const)),
      'horizontal,vertical,amx,auto'))
    .addOption(valueOption('--complement <list>', 'sparse corrections of mostly-ones planes, comma-separated', listOf(choiceOf(['auto', 'never', 'always'] as const)),
      'auto'));
  return parseToolOptions<BenchLayoutsOptions>(program);
}

/** One-hot planes of `numPlanes / planesPerCall` calls per field; the last plane of each call's set is "called" when any is. */
function randomOneHot(numVectors: number, numField: number, planeOfCall: (call: number, field: number) => readonly number[], numPlanes: number): PlaneMatrix {
  const matrix = allocatePlaneMatrix(numVectors, numPlanes, numField);
  const { words, wordsPerPlane } = matrix;
  for (let v = 0; v < numVectors; v++) {
    for (let f = 0; f < numField; f++) {
      for (const plane of planeOfCall(Math.random(), f)) words[(v * numPlanes + plane) * wordsPerPlane + (f >>> 5)] |= 1 << (f & 31);
    }
  }
  return matrix;
}

interface ShapeCase {
  readonly planes: PlaneMatrix;
  readonly termGroups: readonly TermGroup[];
  readonly planeWordRanges: readonly (PlaneWordRange | null)[] | null;
}

function shapeCase(shape: Shape, numVectors: number, numField: number): ShapeCase {
  if (shape === 'king') {
    // HET, HOM1, HOM2, called (1 % missing): hethet, ibs0 (a disjoint pair), het_i·called_j, called_i·het_j.
    const planes = randomOneHot(numVectors, numField, (call) => (call < 0.01 ? [] : call < 0.4 ? [0, 3] : call < 0.7 ? [1, 3] : [2, 3]), 4);
    return { planes, termGroups: [[[0, 0]], [[1, 2], [2, 1]], [[0, 3]], [[3, 0]]], planeWordRanges: null };
  }
  if (shape === 'ccc') {
    const planes = randomOneHot(numVectors, numField, (call) => (call < 0.25 ? [] : call < 0.5 ? [0] : call < 0.75 ? [1] : [0, 1]), 2);
    return { planes, termGroups: [[[0, 0], [0, 1], [1, 0], [1, 1]]], planeWordRanges: null };
  }
  // Epistasis: per class (controls, then cases, half the fields each) planes g = 0, g = 1, called.
  const half = Math.floor(numField / 2);
  const planes = randomOneHot(numVectors, numField, (call, f) => {
    const base = f < half ? 0 : 3;
    return call < 0.05 ? [] : call < 0.5 ? [base, base + 2] : call < 0.85 ? [base + 1, base + 2] : [base + 2];
  }, 6);
  const controls: PlaneWordRange = [0, Math.ceil(half / 32)];
  const cases: PlaneWordRange = [Math.floor(half / 32), planes.wordsPerPlane];
  const termGroups = [0, 1].flatMap((c) => [0, 1].flatMap((x) => [0, 1].map((y): TermGroup => [[3 * c + x, 3 * c + y]])));
  return { planes, termGroups, planeWordRanges: [controls, controls, controls, cases, cases, cases] };
}

function main(): void {
  const options = parseOptions();
  const status = loadNativePopcountKernel();
  if (!status.available) throw new Error(status.reason);
  const amx = status.kernel.amxStatus();
  const layouts = options.layout.filter((layout) => layout !== 'amx' || amx.available);
  if (!amx.available) console.log(amx.reason);
  for (const shape of options.shape) {
    const { planes, termGroups, planeWordRanges } = shapeCase(shape, options.vectors, options.fields);
    const n = options.vectors;
    const request: PopcountGemmRequest = { a: planes, aFirst: 0, aCount: n, b: planes, bFirst: 0, bCount: n, termGroups, strictUpper: true, planeWordRanges };
    const outputs = termGroups.map(() => new Uint32Array(new SharedArrayBuffer(4 * n * n)));
    const pairs = (n * (n - 1)) / 2;
    const line = [`${shape} ${n} vectors × ${options.fields} fields, tasks of ${options.taskRows} rows:`];
    for (const complement of options.complement) {
      for (const layout of layouts) {
        let best = Infinity;
        for (let rep = 0; rep < options.reps; rep++) {
          const start = performance.now();
          for (let rowBegin = 0; rowBegin < n; rowBegin += options.taskRows) {
            const panel = { rowBegin, rowEnd: Math.min(n, rowBegin + options.taskRows), colBegin: rowBegin + 1 };
            status.kernel.runTask({ request, panel, outputs, operandIds: { a: 1, b: 1 } }, { layout, complement });
          }
          best = Math.min(best, performance.now() - start);
        }
        const name = options.complement.length > 1 ? `${layout} (complement ${complement})` : layout;
        line.push(`${name} ${((best * 1e6) / pairs).toFixed(1)} ns/pair`);
      }
    }
    console.log(line.join('  '));
  }
}

main();
