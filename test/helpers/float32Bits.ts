// The IEEE-754 bits of float32(x), for tests that compare GPU results given as float32 bit patterns.
export function float32Bits(x: number): number {
  return new Uint32Array(Float32Array.of(x).buffer)[0];
}
