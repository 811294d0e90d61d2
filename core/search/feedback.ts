import type { Occurrences, WordForms } from './bm25.js';

/**
 * Pseudo-relevance feedback in the manner of RM3 (relevance model 1 of Lavrenko and Croft,
 * interpolated with the query as Abdul-Jaleel et al. describe): the chunks a keyword search ranks
 * first are taken as relevant, the words they use most (weighed by how well each chunk matched)
 * join the query, and the query is searched again with its words weighed. It finds chunks that
 * say what the query asks in other words the top chunks share.
 */
export interface FeedbackOptions {
  /** The first search's chunks taken as relevant. */
  documents: number;
  /** The feedback lexemes kept (query words among them weigh more, the others join the query). */
  terms: number;
  /** The query's share of the interpolated model (λ); the feedback's is 1 − λ. */
  queryWeight: number;
}

/** A chunk the first search ranked: its BM25F score, the analysis of its language and its lexemes' occurrences. */
export interface FeedbackChunk {
  score: number;
  analysis: string;
  occurrences: ReadonlyMap<string, Occurrences>;
}

/** The query's words and the feedback's, with each word's weight (an original word's is at least 1). */
export interface ExpandedQuery {
  words: WordForms[];
  weights: number[];
}

/** A lexeme's count in a chunk: its text occurrences, and its title's as one. */
function count(occ: Occurrences): number {
  return (occ % 256) + (occ >= 256 ? 1 : 0);
}

/**
 * The query expanded by the feedback of `chunks` (the first search's best, best first), or null
 * when they give none. Each word's weight is its share of the interpolated model
 *
 *   P(t | Q') = λ P(t | Q) + (1 − λ) P(t | F),   P(t | Q) = 1 / |Q| per word,
 *   P(t | F) ∝ Σ_d P(t | d) P(d | Q) over the feedback chunks, kept to the `terms` likeliest,
 *
 * with P(t | d) a lexeme's share of the chunk's occurrences and P(d | Q) the chunk's share of the
 * feedback chunks' scores, divided by λ / |Q| so that a word of the query alone weighs 1 as before.
 * A feedback lexeme that is a form of a query word adds to that word; another becomes a word of its
 * own, made by the analysis of the chunks that hold it.
 */
export function expandQuery(words: readonly WordForms[], chunks: readonly FeedbackChunk[], options: FeedbackOptions): ExpandedQuery | null {
  const feedback = chunks.slice(0, options.documents).filter((c) => c.score > 0 && c.occurrences.size > 0);
  const total = feedback.reduce((sum, c) => sum + c.score, 0);
  if (!words.length || !feedback.length || total <= 0) return null;
  const model = new Map<string, { p: number; analyses: Set<string> }>();
  for (const chunk of feedback) {
    let length = 0;
    for (const occ of chunk.occurrences.values()) length += count(occ);
    for (const [lexeme, occ] of chunk.occurrences) {
      const p = (count(occ) / length) * (chunk.score / total);
      const entry = model.get(lexeme);
      if (entry) {
        entry.p += p;
        entry.analyses.add(chunk.analysis);
      } else model.set(lexeme, { p, analyses: new Set([chunk.analysis]) });
    }
  }
  const kept = [...model].sort((a, b) => b[1].p - a[1].p || (a[0] < b[0] ? -1 : 1)).slice(0, options.terms);
  const mass = kept.reduce((sum, [, e]) => sum + e.p, 0);
  if (mass <= 0) return null;
  // In units of an original word's weight (λ / |Q|).
  const unit = options.queryWeight / words.length;
  const feedbackWeight = (p: number) => ((1 - options.queryWeight) * (p / mass)) / unit;
  const wordOf = new Map<string, number>();
  words.forEach((forms, i) => forms.forEach((f) => wordOf.has(f.lexeme) || wordOf.set(f.lexeme, i)));
  const expanded: WordForms[] = [...words];
  const weights = words.map(() => 1);
  for (const [lexeme, { p, analyses }] of kept) {
    const word = wordOf.get(lexeme);
    if (word !== undefined) weights[word]! += feedbackWeight(p);
    else {
      expanded.push([{ lexeme, analyses: [...analyses].sort() }]);
      weights.push(feedbackWeight(p));
    }
  }
  return { words: expanded, weights };
}
