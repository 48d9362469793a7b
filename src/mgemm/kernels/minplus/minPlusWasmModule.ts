// Loads the compiled min-plus GEMM wasm module (build/wasm/minPlusGemm.wasm, 128-bit SIMD) and wraps one instance:
// typed exports, a growable arena, and value views of its memory.
import { readFile } from 'node:fs/promises';
import { WASM_PAGE_BYTES, webAssembly, type WasmMemory, type WasmModule } from '../wasm/webAssemblyApi.js';
import type { ValuePrecision } from '../../minPlusContract.js';
import { minPlusTilesOf, type MinPlusTiles } from './minPlusBlockSizes.js';

/** build/wasm/ at the repo root, seen from dist/src/mgemm/kernels/minplus/ where this file runs once compiled. */
const MIN_PLUS_WASM_URL = new URL('../../../../../build/wasm/minPlusGemm.wasm', import.meta.url);

/** The compiled module, or why there is none (file missing, or a runtime without wasm SIMD). */
export type MinPlusModuleProbe = { readonly available: true; readonly module: WasmModule } | { readonly available: false; readonly reason: string };

let probePromise: Promise<MinPlusModuleProbe> | undefined;

/** Compiles build/wasm/minPlusGemm.wasm once per thread; the module can be sent to workers. */
export function loadMinPlusModule(): Promise<MinPlusModuleProbe> {
  probePromise ??= readFile(MIN_PLUS_WASM_URL).then(
    async (bytes): Promise<MinPlusModuleProbe> => {
      try {
        return { available: true, module: await webAssembly.compile(bytes) };
      } catch (error) {
        return { available: false, reason: `${MIN_PLUS_WASM_URL.pathname} does not compile here (no wasm SIMD?): ${String(error)}` };
      }
    },
    (error: unknown): MinPlusModuleProbe => ({
      available: false, reason: `cannot read ${MIN_PLUS_WASM_URL.pathname} (run \`npm run build:wasm\`): ${String(error)}`,
    }),
  );
  return probePromise;
}

/** Arguments of one 2-way macrokernel call; addresses are byte offsets in the instance's linear memory. */
export interface MinPlus2MacroCall {
  readonly aBlockByte: number;
  readonly bBlockByte: number;
  readonly cBlockByte: number;
  readonly numRowsPad: number;
  readonly numColsPad: number;
  readonly numFields: number;
  readonly ldcBytes: number;
  /** Task-local index of the block's first A row and B column, for strictUpper tile skipping. */
  readonly rowGlobal: number;
  readonly colGlobal: number;
  readonly strictUpper: boolean;
}

/** Arguments of one 3-way macrokernel call: `last` is which pair min is added last (microkernels3.ts). */
export interface MinPlus3MacroCall {
  readonly aBlockByte: number;
  readonly bBlockByte: number;
  readonly cBlockByte: number;
  readonly numRowsPad: number;
  readonly numColsPad: number;
  readonly numFields: number;
  readonly ldcBytes: number;
  readonly last: number;
}

type Macro2 = (a: number, b: number, c: number, rows: number, cols: number, fields: number, ldc: number, rowG: number, colG: number, upper: number) => void;
type Macro3 = (a: number, b: number, c: number, rows: number, cols: number, fields: number, ldc: number, last: number) => void;

/** The exports of assembly/minplus/index.ts, as called from TypeScript. */
interface MinPlusExports {
  readonly memory: WasmMemory;
  microkernelTiles(single: number): number;
  heapBase(): number;
  minPlus2MacrokernelF64: Macro2;
  minPlus2MacrokernelF32: Macro2;
  minPlus3MacrokernelF64: Macro3;
  minPlus3MacrokernelF32: Macro3;
  minAddCeiling(iterations: number, single: number, arena: number): number;
  ceilingFields(): number;
}

const EXPORTED_FUNCTIONS = [
  'microkernelTiles', 'heapBase', 'minPlus2MacrokernelF64', 'minPlus2MacrokernelF32', 'minPlus3MacrokernelF64',
  'minPlus3MacrokernelF32', 'minAddCeiling', 'ceilingFields',
] as const;

function checkExports(exports: Record<string, unknown>): MinPlusExports {
  for (const name of EXPORTED_FUNCTIONS) {
    if (typeof exports[name] !== 'function') throw new Error(`minPlusGemm.wasm lacks export ${name}`);
  }
  if (typeof exports.memory !== 'object' || exports.memory === null) throw new Error('minPlusGemm.wasm lacks its memory');
  return exports as unknown as MinPlusExports;
}

/** The decimal packing of microkernelTiles (assembly/minplus/index.ts). */
const tileCode = (t: MinPlusTiles): number => t.mr2 * 1000 + t.nr2 * 100 + t.mr3 * 10 + t.nr3;

/** One instance of the module plus the bookkeeping of its linear memory, used by one thread. */
export class MinPlusWasmInstance {
  /** First byte the driver may use (64-byte aligned, past the module's own data). */
  readonly arenaBase: number;
  private doubles: Float64Array;
  private singles: Float32Array;

  private constructor(private readonly exports: MinPlusExports) {
    for (const precision of ['double', 'single'] as const) {
      const want = tileCode(minPlusTilesOf(precision));
      const got = exports.microkernelTiles(precision === 'single' ? 1 : 0);
      if (got !== want) throw new Error(`minPlusGemm.wasm ${precision} tiles are ${got}, minPlusBlockSizes.ts says ${want}: rebuild with \`npm run build:wasm\``);
    }
    this.arenaBase = Math.ceil(exports.heapBase() / 64) * 64;
    this.doubles = new Float64Array(exports.memory.buffer);
    this.singles = new Float32Array(exports.memory.buffer);
  }

  /** Instantiates `module` in the calling thread and checks its exports and geometry. */
  static async create(module: WasmModule): Promise<MinPlusWasmInstance> {
    const instance = await webAssembly.instantiate(module, {});
    return new MinPlusWasmInstance(checkExports(instance.exports));
  }

  /** Grows memory so that `numBytes` from arenaBase on exist. */
  reserveArena(numBytes: number): void {
    const needBytes = this.arenaBase + numBytes;
    const haveBytes = this.exports.memory.buffer.byteLength;
    if (needBytes > haveBytes) this.exports.memory.grow(Math.ceil((needBytes - haveBytes) / WASM_PAGE_BYTES));
  }

  /** A value view of all of linear memory (re-made after growth, which detaches the old buffer). */
  values(precision: ValuePrecision): Float64Array | Float32Array {
    const buffer = this.exports.memory.buffer;
    if (this.doubles.buffer !== buffer) {
      this.doubles = new Float64Array(buffer);
      this.singles = new Float32Array(buffer);
    }
    return precision === 'double' ? this.doubles : this.singles;
  }

  /** Runs the 2-way macrokernel: C block += Σ_f min(A block, B block). */
  macrokernel2(precision: ValuePrecision, call: MinPlus2MacroCall): void {
    const run = precision === 'double' ? this.exports.minPlus2MacrokernelF64 : this.exports.minPlus2MacrokernelF32;
    run(call.aBlockByte, call.bBlockByte, call.cBlockByte, call.numRowsPad, call.numColsPad, call.numFields, call.ldcBytes,
      call.rowGlobal, call.colGlobal, call.strictUpper ? 1 : 0);
  }

  /** Runs the 3-way macrokernel: C block += Σ_f term. */
  macrokernel3(precision: ValuePrecision, call: MinPlus3MacroCall): void {
    const run = precision === 'double' ? this.exports.minPlus3MacrokernelF64 : this.exports.minPlus3MacrokernelF32;
    run(call.aBlockByte, call.bBlockByte, call.cBlockByte, call.numRowsPad, call.numColsPad, call.numFields, call.ldcBytes, call.last);
  }

  /**
   * The ceiling loop (assembly/minplus/ceiling.ts): the 2-way microkernel `iterations` times on one L1-resident tile.
   * Returns the (value, field) min+add pairs it did.
   */
  minAddCeiling(iterations: number, precision: ValuePrecision): number {
    this.reserveArena(65536);
    this.values('double').fill(0, this.arenaBase / 8, this.arenaBase / 8 + 65536 / 8);
    this.exports.minAddCeiling(iterations, precision === 'single' ? 1 : 0, this.arenaBase);
    const { mr2, nr2 } = minPlusTilesOf(precision);
    return iterations * mr2 * nr2 * this.exports.ceilingFields();
  }
}
