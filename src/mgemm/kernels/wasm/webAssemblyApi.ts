// A minimal typed view of the global WebAssembly object (the project's lib settings do not declare it).

/** A compiled module; opaque here, cloneable to worker threads. */
export interface WasmModule {
  readonly __wasmModuleBrand?: never;
}

/** Linear memory of an instance. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  /** Grows by `deltaPages` 64 KiB pages; returns the previous size in pages. */
  grow(deltaPages: number): number;
}

/** An instance; its exports are checked by the caller before use. */
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

interface WebAssemblyGlobal {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: Record<string, never>): Promise<WasmInstance>;
  /** Synchronous instantiation (any module size in Node; browsers limit it on the main thread only). */
  Instance: new (module: WasmModule, imports: Record<string, never>) => WasmInstance;
}

/** The runtime's WebAssembly object (Node ≥ 20 always has one). */
export const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyGlobal }).WebAssembly;

/** Bytes per wasm page. */
export const WASM_PAGE_BYTES = 65536;
