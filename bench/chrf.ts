/**
 * chrF (Popović 2015), as sacreBLEU computes it by default (`chrF2`): character n-grams of orders
 * 1 to 6 with whitespace removed, counts clipped to the reference's; per order precision and
 * recall, averaged over the orders both sides have n-grams of; then the F-score with β = 2 (recall
 * weighs twice as much as precision), on a 0-100 scale. A corpus score sums the counts of all
 * segments before dividing (it is not a mean of segment scores).
 */

export interface ChrfOptions {
  /** Highest character n-gram order (default 6). */
  order?: number;
  /** Weight of recall against precision (default 2). */
  beta?: number;
}

/** Per order (1..order): n-grams in the hypothesis, in the reference, and matched. */
export type ChrfStatistics = Array<{ hypothesis: number; reference: number; matched: number }>;

function ngrams(chars: string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= chars.length; i++) {
    const gram = chars.slice(i, i + n).join('');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** The n-gram counts of one segment (characters are code points; whitespace is not counted). */
export function chrfStatistics(hypothesis: string, reference: string, order = 6): ChrfStatistics {
  const hyp = [...hypothesis.replace(/\s+/gu, '')];
  const ref = [...reference.replace(/\s+/gu, '')];
  const out: ChrfStatistics = [];
  for (let n = 1; n <= order; n++) {
    const h = ngrams(hyp, n);
    const r = ngrams(ref, n);
    let matched = 0;
    for (const [gram, count] of h) matched += Math.min(count, r.get(gram) ?? 0);
    out.push({ hypothesis: Math.max(0, hyp.length - n + 1), reference: Math.max(0, ref.length - n + 1), matched });
  }
  return out;
}

/** The score of (summed) statistics, 0-100. */
export function chrfScore(statistics: ChrfStatistics, beta = 2): number {
  let precision = 0;
  let recall = 0;
  let orders = 0;
  for (const s of statistics) {
    if (s.hypothesis > 0 && s.reference > 0) {
      precision += s.matched / s.hypothesis;
      recall += s.matched / s.reference;
      orders += 1;
    }
  }
  if (orders === 0) return 0;
  precision /= orders;
  recall /= orders;
  if (precision + recall === 0) return 0;
  const b2 = beta * beta;
  return (100 * (1 + b2) * precision * recall) / (b2 * precision + recall);
}

/** Corpus chrF of hypotheses against references (one reference each, same order). */
export function corpusChrf(hypotheses: string[], references: string[], options: ChrfOptions = {}): number {
  if (hypotheses.length !== references.length) throw new Error(`${hypotheses.length} hypotheses for ${references.length} references`);
  const order = options.order ?? 6;
  const total: ChrfStatistics = Array.from({ length: order }, () => ({ hypothesis: 0, reference: 0, matched: 0 }));
  hypotheses.forEach((hypothesis, i) => {
    chrfStatistics(hypothesis, references[i]!, order).forEach((s, n) => {
      total[n]!.hypothesis += s.hypothesis;
      total[n]!.reference += s.reference;
      total[n]!.matched += s.matched;
    });
  });
  return chrfScore(total, options.beta ?? 2);
}

/** chrF of one segment. */
export function sentenceChrf(hypothesis: string, reference: string, options: ChrfOptions = {}): number {
  return chrfScore(chrfStatistics(hypothesis, reference, options.order ?? 6), options.beta ?? 2);
}
