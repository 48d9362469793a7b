// Loads the compiled popcount-GEMM wasm module and wraps one instance: typed exports and a growable arena.

import { readFile } from 'node:fs/promises';
import { MICROKERNEL_MR, MICROKERNEL_NR } from './blockSizes.js';
import { WASM_PAGE_BYTES, webAssembly, type WasmMemory, type WasmModule } from './webAssemblyApi.js';

/** build/wasm/ at the repo root, seen from dist/src/mgemm/kernels/wasm/ where this file runs once compiled. */
const POPCOUNT_GEMM_WASM_URL = new URL('../../../../../build/wasm/popcountGemm.wasm', import.meta.url);

let modulePromise: Promise<WasmModule> | undefined;

/** Compiles build/wasm/popcountGemm.wasm once per thread; the module can be sent to workers. */
export function loadPopcountGemmModule(): Promise<WasmModule> {
  modulePromise ??= readFile(POPCOUNT_GEMM_WASM_URL).then(
    (bytes) => webAssembly.compile(bytes),
    (error: unknown) => {
      modulePromise = undefined;
      throw new Error(`cannot read ${POPCOUNT_GEMM_WASM_URL.pathname} (run \`npm run build:wasm\`): ${String(error)}`);
    },
  );
  return modulePromise;
}

/** Arguments of one macrokernel call; addresses are byte offsets in the instance's linear memory. */
export interface MacrokernelCall {
  /** Packed A block: numRowsPad / MR micro-panels. */
  readonly aBlockByte: number;
  /** Packed B block: numColsPad / NR micro-panels. */
  readonly bBlockByte: number;
  /** Top-left u32 of the C block to accumulate into. */
  readonly cBlockByte: number;
  readonly numRowsPad: number;
  readonly numColsPad: number;
  /** Length of the K block in 64-bit steps (even). */
  readonly numSteps: number;
  /** Bytes between C rows. */
  readonly ldcBytes: number;
  /** Request-local index of the block's first A row, for strictUpper tile skipping. */
  readonly rowGlobal: number;
  /** Request-local index of the block's first B row. */
  readonly colGlobal: number;
  /** Skip tiles whose entries all have row ≥ column. */
  readonly strictUpper: boolean;
}

/** The exports of assembly/index.ts, as called from TypeScript. */
interface PopcountGemmExports {
  readonly memory: WasmMemory;
  microkernelRows(): number;
  microkernelCols(): number;
  heapBase(): number;
  popcountMacrokernel(
    aBlockByte: number,
    bBlockByte: number,
    cBlockByte: number,
    numRowsPad: number,
    numColsPad: number,
    numSteps: number,
    ldcBytes: number,
    rowGlobal: number,
    colGlobal: number,
    strictUpper: number,
  ): void;
}

const EXPORTED_FUNCTIONS = ['microkernelRows', 'microkernelCols', 'heapBase', 'popcountMacrokernel'] as const;

function checkExports(exports: Record<string, unknown>): PopcountGemmExports {
  for (const name of EXPORTED_FUNCTIONS) {
    if (typeof exports[name] !== 'function') throw new Error(`popcountGemm.wasm lacks export ${name}`);
  }
  if (typeof exports.memory !== 'object' || exports.memory === null) throw new Error('popcountGemm.wasm lacks its memory');
  return exports as unknown as PopcountGemmExports;
}

/** One instance of the module plus the bookkeeping of its linear memory, used by one thread. */
export class PopcountGemmWasmInstance {
  /** First byte the driver may use (64-byte aligned, past the module's own data). */
  readonly arenaBase: number;
  private wordsView: Uint32Array;

  private constructor(private readonly exports: PopcountGemmExports) {
    if (exports.microkernelRows() !== MICROKERNEL_MR || exports.microkernelCols() !== MICROKERNEL_NR) {
      throw new Error(
        `popcountGemm.wasm is ${exports.microkernelRows()}x${exports.microkernelCols()}, blockSizes.ts says ` +
          `${MICROKERNEL_MR}x${MICROKERNEL_NR}: rebuild with \`npm run build:wasm\``,
      );
    }
    this.arenaBase = Math.ceil(exports.heapBase() / 64) * 64;
    this.wordsView = new Uint32Array(exports.memory.buffer);
  }

  /** Instantiates `module` in the calling thread and checks its exports and geometry. */
  static async create(module: WasmModule): Promise<PopcountGemmWasmInstance> {
    const instance = await webAssembly.instantiate(module, {});
    return new PopcountGemmWasmInstance(checkExports(instance.exports));
  }

  /** The same, synchronously (a worker that needs its instance inside a task). */
  static createSync(module: WasmModule): PopcountGemmWasmInstance {
    return new PopcountGemmWasmInstance(checkExports(new webAssembly.Instance(module, {}).exports));
  }

  /** Grows memory so that `numBytes` from arenaBase on exist; returns the u32 view of all memory. */
  reserveArena(numBytes: number): Uint32Array {
    const needBytes = this.arenaBase + numBytes;
    const haveBytes = this.exports.memory.buffer.byteLength;
    if (needBytes > haveBytes) this.exports.memory.grow(Math.ceil((needBytes - haveBytes) / WASM_PAGE_BYTES));
    return this.words();
  }

  /** The u32 view of linear memory (re-made after growth, which detaches the old buffer). */
  words(): Uint32Array {
    if (this.wordsView.buffer !== this.exports.memory.buffer) this.wordsView = new Uint32Array(this.exports.memory.buffer);
    return this.wordsView;
  }

  /** Runs assembly/macrokernel.ts: C block += A block × B block. */
  macrokernel(call: MacrokernelCall): void {
    this.exports.popcountMacrokernel(
      call.aBlockByte,
      call.bBlockByte,
      call.cBlockByte,
      call.numRowsPad,
      call.numColsPad,
      call.numSteps,
      call.ldcBytes,
      call.rowGlobal,
      call.colGlobal,
      call.strictUpper ? 1 : 0,
    );
  }
}
