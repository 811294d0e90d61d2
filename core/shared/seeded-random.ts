/**
 * mulberry32: a tiny seeded generator, identical on every platform (32-bit integer arithmetic
 * only). For reproducible projections, test data and benchmarks — never for anything secret.
 * Returns unsigned 32-bit integers.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** The same generator as floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}
