// The part of pngjs (a devDependency without bundled types) that the report's screenshot test uses.
declare module 'pngjs' {
  /** A decoded image: RGBA bytes, 4 per pixel, rows top to bottom. */
  export interface DecodedPng {
    readonly width: number;
    readonly height: number;
    readonly data: Buffer;
  }
  export const PNG: {
    readonly sync: { read(buffer: Buffer): DecodedPng };
  };
}
