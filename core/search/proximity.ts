import type { Bm25Query } from './bm25.js';

/**
 * Term proximity on top of BM25F (after Rasolofo and Savoy's BM25TP): a chunk where two of the
 * query's words stand close together ("copy … files") is likelier to say what the query asks than
 * one that holds them pages apart. Each pair of distinct query words the chunk holds adds
 *
 *   weight × min(idf₁, idf₂) × f × (k1 + 1) / (k1 + f),   f = Σ 1 / d
 *
 * where the sum runs over the first word's positions whose nearest position of the second word is
 * d ≤ `window` positions away (stop words keep their places, so "files and directories" is d 2). A
 * word's positions are those of all its forms; its idf that of its rarest form the chunk holds.
 * BM25F's best `candidates` are re-ordered by BM25F plus this, the rest following in BM25F's order.
 *
 * PROXIMITY is the setting in use, chosen by `bench/retrieval-quality.bench.ts --proximity` on the
 * two tuning collections (never on the held-back one; docs/retrieval-quality.md, "Term proximity"): of
 * weights 0.25–1 and windows 3–16, the best sum of the six languages' fused nDCG@10 means, the
 * LibreOffice help 0.679 → 0.686 and Debian's package descriptions 0.811 → 0.814. Re-ordering 20,
 * 30 or 50 candidates scores the same on both (10 costs the help 0.002); each costs a read of
 * their tsvectors, so 30.
 */
export interface ProximityOptions {
  /** What a pair of words standing next to each other adds, in units of the rarer word's BM25F weight. */
  weight: number;
  /** The farthest apart (in positions) two words still count as near. */
  window: number;
  /** How many of BM25F's best are re-ordered (the rest follow in BM25F's order). */
  candidates: number;
}

interface WordPositions {
  idf: number;
  positions: number[];
}

/** The proximity bonus of a chunk whose lexemes stand at `positions` (tsvectorPositions). */
export function proximityScore(
  query: Bm25Query,
  positions: ReadonlyMap<string, readonly number[]>,
  options: Pick<ProximityOptions, 'weight' | 'window'>,
): number {
  const byWord = new Map<number, WordPositions>();
  for (const { lexeme, word, idf } of query.lexemes) {
    const at = positions.get(lexeme);
    if (!at?.length) continue;
    const entry = byWord.get(word);
    if (!entry) byWord.set(word, { idf, positions: [...at] });
    else {
      entry.idf = Math.max(entry.idf, idf);
      entry.positions.push(...at);
    }
  }
  if (byWord.size < 2) return 0;
  const words = [...byWord.values()];
  for (const w of words) w.positions.sort((a, b) => a - b);
  let score = 0;
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) {
      const f = nearness(words[i]!.positions, words[j]!.positions, options.window);
      if (f > 0) score += (Math.min(words[i]!.idf, words[j]!.idf) * f * query.k1Plus1) / (query.k1 + f);
    }
  }
  return options.weight * score;
}

/** Σ 1/d over `a`'s positions whose nearest position in `b` (both ascending) is 1 ≤ d ≤ window away. */
export function nearness(a: readonly number[], b: readonly number[], window: number): number {
  let f = 0;
  let k = 0;
  for (const p of a) {
    while (k + 1 < b.length && b[k + 1]! <= p) k++;
    let d = Infinity;
    for (const q of [b[k], b[k + 1]]) {
      if (q === undefined || q === p) continue;
      d = Math.min(d, Math.abs(q - p));
    }
    if (d <= window) f += 1 / d;
  }
  return f;
}

export const PROXIMITY: ProximityOptions = { weight: 0.5, window: 8, candidates: 30 };
