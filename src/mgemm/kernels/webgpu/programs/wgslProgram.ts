// The shape of a WebGPU compute program (plain data + WGSL on request) and the one place that emits
// its scaffolding: storage bindings, the uniform struct and the entry point.

/** A storage buffer of the program, bound at group 0 in declaration order. */
export interface StorageBinding {
  readonly name: string;
  readonly access: 'read' | 'read_write';
  readonly elementType: 'u32' | 'vec4<u32>' | 'atomic<u32>';
}

/** A scalar uniform; all uniforms form one struct `u` bound after the storage buffers. */
export interface UniformField {
  readonly name: string;
  readonly type: 'u32' | 'i32';
}

/**
 * A compute program: everything fixed at creation (tiling, term lists) is in `cacheKey` and in the
 * WGSL; shapes that change per dispatch travel as uniforms.
 */
export interface WgslProgram {
  /** Identifies the pipeline: two programs with the same key have the same WGSL. */
  readonly cacheKey: string;
  readonly workgroupSize: readonly [x: number, y: number];
  readonly storage: readonly StorageBinding[];
  readonly uniforms: readonly UniformField[];
  /** `enable` directives the body needs, e.g. `chromium_experimental_subgroup_matrix`. */
  readonly extensions: readonly string[];
  /** Module-scope declarations (constants, workgroup arrays, helpers). */
  readonly declarations: string;
  /** Body of `main`, which sees `wg` (workgroup_id), `lid` (local_invocation_id), `li` (local_invocation_index) and `u`. */
  readonly mainBody: string;
  /** Extra parameters of `main`, e.g. `@builtin(subgroup_id) sg: u32`. */
  readonly extraBuiltins?: string;
  /** Lines after the `enable` directives, e.g. `diagnostic(...)`. */
  readonly directives?: readonly string[];
}

/** Bytes of the uniform buffer: 4 per field, rounded up to 16 (uniform structs are 16-byte aligned). */
export function uniformBytes(program: WgslProgram): number {
  return Math.max(16, Math.ceil((program.uniforms.length * 4) / 16) * 16);
}

/** The whole WGSL module of a program. */
export function emitShader(program: WgslProgram): string {
  const lines: string[] = [];
  for (const extension of program.extensions) lines.push(`enable ${extension};`);
  lines.push(...(program.directives ?? []));
  program.storage.forEach((b, idx) => {
    lines.push(`@group(0) @binding(${idx}) var<storage, ${b.access}> ${b.name}: array<${b.elementType}>;`);
  });
  const fields = program.uniforms.map((f) => `  ${f.name}: ${f.type},`);
  lines.push(`struct Uniforms {`, ...(fields.length > 0 ? fields : ['  unused: u32,']), `};`);
  lines.push(`@group(0) @binding(${program.storage.length}) var<uniform> u: Uniforms;`);
  lines.push(program.declarations);
  const [x, y] = program.workgroupSize;
  lines.push(
    `@compute @workgroup_size(${x}, ${y})`,
    `fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32${program.extraBuiltins === undefined ? '' : `, ${program.extraBuiltins}`}) {`,
    program.mainBody,
    `}`,
  );
  return lines.join('\n');
}

/**
 * The uniform values of several dispatches in one buffer (one upload per submit, not one buffer per dispatch):
 * each dispatch's block (its values in declaration order, i32 fields as two's complement) at the next multiple of
 * `alignment` bytes. Returns the bytes and each block's offset.
 */
export function packUniformBlocks(
  blocks: readonly { readonly program: WgslProgram; readonly values: Readonly<Record<string, number>> }[], alignment: number,
): { readonly bytes: ArrayBuffer; readonly offsets: readonly number[] } {
  const offsets: number[] = [];
  let numBytes = 0;
  for (const { program } of blocks) {
    offsets.push(numBytes);
    numBytes = Math.ceil((numBytes + uniformBytes(program)) / alignment) * alignment;
  }
  const bytes = new ArrayBuffer(Math.max(16, numBytes));
  const view = new DataView(bytes);
  blocks.forEach(({ program, values }, b) => {
    program.uniforms.forEach((field, idx) => {
      const value = values[field.name];
      if (value === undefined || !Number.isInteger(value)) throw new RangeError(`${program.cacheKey}: uniform ${field.name}: ${value}`);
      if (field.type === 'u32') view.setUint32(offsets[b] + idx * 4, value, true);
      else view.setInt32(offsets[b] + idx * 4, value, true);
    });
  });
  return { bytes, offsets };
}
