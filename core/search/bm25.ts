/**
 * Okapi BM25F, the keyword ranking of both keyword indexes (in memory and in the database): a
 * chunk's score for a query is the sum, over the query's words, of the best of the word's lexemes
 * (its forms in each language), each lexeme weighing
 *
 *   idf × t × (k1 + 1) / (k1 + t),   t = titleWeight × inTitle + inText / (1 − b + b × length / averageLength)
 *   idf = ln(1 + (chunks − holding + 0.5) / (holding + 0.5))
 *
 * where `inTitle` is 1 when the document's title holds the lexeme (a title counts once), `inText`
 * how often the chunk's text does (up to 255), `length` the number of distinct lexemes of the
 * chunk's tsvector (title included) and `holding` and `averageLength` the statistics of the
 * searched collections (knowledge bases or corpora) that the database keeps exactly with every
 * write (KeywordStatistics). A rare word weighs more than a common one, a long chunk's repetitions
 * count less, and a title holding the word counts as a text holding it `titleWeight` times in a
 * chunk of average length.
 *
 * `chunks` is the number of chunks that could hold the lexeme as a form of the query's word: those
 * whose language's analysis (text-search configuration) makes that lexeme of the word
 * (WordForm.analyses). A query is normalised with every analysis, as its language is not known,
 * while each chunk is indexed with its own; a stop word of the collection's language ("le" in French) keeps the
 * lexemes other configurations make of it, held only by the collection's few chunks of other
 * languages. Counted among all chunks, such a lexeme looked rare and outweighed the query's real
 * words (−9 nDCG@10 points on the French LibreOffice help); counted among the chunks that could
 * hold it, it is as common as it is.
 *
 * Both indexes compute the same float8 operations in the same order (the constants derived here,
 * then per lexeme and per word in ascending word order), so they rank alike to the last bit.
 */

/** The parameters of the ranking (see BM25_PARAMETERS for the values in use and how they were chosen). */
export interface Bm25Parameters {
  /** How quickly repetitions of a word stop adding to its weight (0: one occurrence is all). */
  k1: number;
  /** How much a chunk's length discounts its words' counts (0: not at all; 1: in proportion). */
  b: number;
  /** What a document title holding the word counts for, in occurrences in a chunk of average length. */
  titleWeight: number;
}

/**
 * The values in use, chosen by `bench/retrieval-quality.bench.ts --tune` on the two tuning
 * collections (never on the held-back one; docs/retrieval-quality.md, "Keyword ranking parameters"): the
 * best mean nDCG@10 of six languages over both, the LibreOffice help's index terms (0.670, level
 * with the earlier k1 2, b 0.15, title 3, which was chosen on them alone) and Debian's package
 * descriptions (0.806 against 0.782; every language level or up). Settings near it score within
 * 0.002 of it. One setting for every language: a language's own best was within 0.01 of it but
 * on the Spanish help (0.630 against 0.647 at k1 2, b 0.15, title 5), where the Spanish package
 * descriptions gain 0.039, so per-language values would fit one collection's noise.
 */
export const BM25_PARAMETERS: Bm25Parameters = { k1: 0.9, b: 0.4, titleWeight: 7 };

/** The statistics of the collections a keyword search covers, as the database keeps them. */
export interface KeywordStatistics {
  /** Chunks in the collections. */
  chunks: number;
  /** Of those, how many are indexed with each text-search configuration (by name). */
  chunksByAnalysis: ReadonlyMap<string, number>;
  /** Their lengths summed (distinct lexemes per chunk). */
  lexemes: number;
  /** Per query lexeme, how many of the chunks hold it (a lexeme no chunk holds: absent). */
  holding: ReadonlyMap<string, number>;
}

/** A lexeme's occurrences in a chunk, as one number: 256 × (in the title: 0 or 1) + (in the text: 0–255). */
export type Occurrences = number;

export const MAX_TEXT_OCCURRENCES = 255;

export function occurrences(inTitle: number, inText: number): Occurrences {
  return (inTitle > 0 ? 256 : 0) + Math.min(Math.max(inText, 0), MAX_TEXT_OCCURRENCES);
}

/**
 * A form of a query word: a lexeme, with the text-search configurations that make it of the word
 * (absent: every configuration chunks are indexed with).
 */
export interface WordForm {
  lexeme: string;
  /** Its share of the word's weight (a synonym's: SynonymOptions.weight); absent: 1. */
  weight?: number;
  analyses?: readonly string[];
}

/** A query word as PostgreSQL normalises it: its forms, one per distinct lexeme. */
export type WordForms = readonly WordForm[];

/** The lexemes of each word (what the keyword indexes match rows by). */
export function lexemesOf(words: ReadonlyArray<WordForms>): string[][] {
  return words.map((forms) => forms.map((f) => f.lexeme));
}

/**
 * One query lexeme with its word (position among the query's words) and inverse document
 * frequency, times the word's weight when the query weighs its words (pseudo-relevance feedback)
 * and the form's when it is a synonym's (synonyms.ts).
 */
export interface ScoredLexeme {
  lexeme: string;
  word: number;
  idf: number;
}

/** The ranking of one query over one set of collections: the per-lexeme weights and the constants of the formula. */
export class Bm25Query {
  /** Lexemes some searched chunk holds, by word (ascending). */
  readonly lexemes: readonly ScoredLexeme[];
  readonly k1: number;
  /** k1 + 1. */
  readonly k1Plus1: number;
  readonly titleWeight: number;
  /** 1 − b: the length norm is `lengthBase + lengthFactor × length`. */
  readonly lengthBase: number;
  /** b / averageLength. */
  readonly lengthFactor: number;

  /** `weights`: each word's weight, by position (absent: 1 each); a chunk's score sums weight × the word's BM25F. */
  constructor(
    words: ReadonlyArray<WordForms>,
    statistics: KeywordStatistics,
    parameters: Bm25Parameters = BM25_PARAMETERS,
    weights?: readonly number[],
  ) {
    const n = statistics.chunks;
    const seen = new Set<string>();
    this.lexemes = words.flatMap((forms, word) =>
      forms.flatMap(({ lexeme, analyses, weight }) => {
        const key = `${word} ${lexeme}`;
        const holding = statistics.holding.get(lexeme) ?? 0;
        if (holding === 0 || seen.has(key)) return [];
        seen.add(key);
        // A lexeme other words make in other configurations may be held by more chunks than could
        // hold it as this word's form: then it is as common as it can be.
        const could = analyses ? Math.max(holding, analyses.reduce((sum, c) => sum + (statistics.chunksByAnalysis.get(c) ?? 0), 0)) : n;
        return [{ lexeme, word, idf: (weight ?? 1) * (weights?.[word] ?? 1) * Math.log(1 + (could - holding + 0.5) / (holding + 0.5)) }];
      }),
    );
    this.k1 = parameters.k1;
    this.k1Plus1 = parameters.k1 + 1;
    this.titleWeight = parameters.titleWeight;
    this.lengthBase = 1 - parameters.b;
    this.lengthFactor = n > 0 && statistics.lexemes > 0 ? parameters.b / (statistics.lexemes / n) : 0;
  }

  /** The weight of a lexeme (its `idf`) in a chunk of `length` lexemes holding it as `occ` says. */
  weigh(idf: number, occ: Occurrences, length: number): number {
    const t = this.titleWeight * (occ >= 256 ? 1 : 0) + (occ % 256) / (this.lengthBase + this.lengthFactor * length);
    return (idf * t * this.k1Plus1) / (this.k1 + t);
  }
}
