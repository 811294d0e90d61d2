/**
 * Reciprocal-rank fusion: each list contributes weight / (k + rank) for every item it ranks
 * (rank from 1). It needs no score calibration between a cosine similarity and a text rank, and
 * an item both lists agree on rises above one that only one list ranks highly.
 */
export interface FusionOptions {
  k: number;
  weights: number[];
}

/** Vector and keyword ranks weigh alike: for an embedder that sees meaning keyword search cannot. */
export const DEFAULT_FUSION: FusionOptions = { k: 60, weights: [1, 1] };

/**
 * The built-in lexical embedder sees the words keyword search sees (hashed, accents folded), so
 * its ranking adds little: it breaks keyword search's near-ties and adds what keyword search
 * misses, at RRF k 5 and vector:keyword 1:4, measured on the LibreOffice help
 * (`bench/retrieval-quality.bench.ts --variants k,weights,candidates`; docs/retrieval-quality.md,
 * "The LibreOffice help"), never on the held-back collection. Mean nDCG@10 of six languages
 * (2026-11-26, after keyword forms were counted per analysis): 0.672, against 0.667 for keyword
 * search alone, 0.649 at k 60 and 1:4 (the setting before) and lower at every heavier vector
 * weight; the best of 330 settings, so somewhat optimistic. A small k lets keyword search's first
 * ranks lead, which a large one flattened.
 */
export const LEXICAL_FUSION: FusionOptions = { k: 5, weights: [1, 4] };

/** `itemWeights[l][i]`, where given, multiplies list l's weight for its i-th item. */
export function reciprocalRankFusion(
  lists: string[][],
  options: FusionOptions = DEFAULT_FUSION,
  itemWeights?: ReadonlyArray<readonly number[] | undefined>,
): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  lists.forEach((list, li) => {
    const weight = options.weights[li] ?? 1;
    list.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + (weight * (itemWeights?.[li]?.[index] ?? 1)) / (options.k + index + 1));
    });
  });
  return [...scores.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
