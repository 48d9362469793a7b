// WebGPU flag values from the specification, so no module has to install the API's globals.

/** GPUBufferUsage flags (WebGPU spec §5.1). */
export const BUFFER_USAGE = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  QUERY_RESOLVE: 0x0200,
} as const;

/** GPUMapMode.READ and WRITE (WebGPU spec §5.2). */
export const MAP_MODE_READ = 0x0001;
export const MAP_MODE_WRITE = 0x0002;

/** Feature name of the experimental subgroup-matrix (tensor core) extension of Dawn. */
export const SUBGROUP_MATRIX_FEATURE = 'chromium-experimental-subgroup-matrix';
