import { type BilingualDictionary, type LanguagePair, pairKey } from '../ports/translator.js';
import { type Language, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import { foldAccents } from './accent-folding.js';

/**
 * Synonyms of a query's words, found by a round trip through another language's words in a
 * bilingual dictionary (Bannard and Callison-Burch's pivot paraphrasing): two words one language
 * translates into the same word of another are likely synonyms. Through English, the catalogue
 * dictionaries (built from Debian's software translations) make the Spanish "archivo" and "fichero"
 * one another's, "borrar" and "eliminar", the German "Ordner" and "Verzeichnis", the Italian
 * "cancellare" and "eliminare". A chunk holding a synonym then matches the query word, for `weight`
 * of the word's BM25F weight (SearchService.wordsOf).
 *
 * SYNONYMS is the setting in use, chosen by `bench/retrieval-quality.bench.ts` on the two tuning
 * collections (never on the held-back one; docs/retrieval-quality.md, "Synonyms").
 */
export interface SynonymOptions {
  /** A synonym's weight, as a share of the query word's own (its forms' idf is multiplied by it). */
  weight: number;
  /** How many of a word's translations (most likely first) are taken into the pivot language. */
  outward: number;
  /** How many of each pivot word's translations (most likely first) come back as synonyms. */
  back: number;
  /** Through how many pivot languages (pivotsOf, first first) a word makes its round trips. */
  pivots: number;
}

export const SYNONYMS: SynonymOptions = { weight: 0.5, outward: 2, back: 3, pivots: 1 };

/** The pivot languages, the catalogues' largest first. */
const PIVOTS: readonly Language[] = ['en', 'es', 'fr'];

/** The languages a word of `language` makes its round trips through: English, Spanish, French, less its own. */
export function pivotsOf(language: Language, count: number): Language[] {
  return PIVOTS.filter((pivot) => pivot !== language).slice(0, count);
}

/** One query word's synonyms in one language. */
export interface WordSynonyms {
  language: Language;
  /** The word as the query spells it (lower-cased, as the dictionary keys it). */
  word: string;
  synonyms: string[];
}

/** The shortest synonym kept: shorter words from the round trip are mostly articles ("la", "el"). */
const MIN_SYNONYM_LENGTH = 3;

/**
 * The synonyms of the query's words in every language the dictionary has a round trip for (the
 * query's language is not known: a synonym counts only for chunks of its own language, and
 * SearchService keeps only the languages of the chunks searched). A word spelt alike in both
 * languages is its own pivot (the German "Name" through the English "name" to "Bezeichnung"); a
 * word the dictionary does not know is too, and then has none unless it is a word of the pivot
 * language (an English term in a Spanish query: its Spanish translations). Left out: the word again
 * (but for accents), a word spelt as one of its pivots (a borrowing the catalogues left
 * untranslated: "delete" among the Spanish for "delete"), and short words.
 */
export async function querySynonyms(dictionary: BilingualDictionary, query: string, options: SynonymOptions, languages: readonly Language[] = SUPPORTED_LANGUAGES): Promise<WordSynonyms[]> {
  const pairs = await dictionary.pairs();
  const has = (pair: LanguagePair) => pairs.has(pairKey(pair));
  const perLanguage = await Promise.all(
    languages.map(async (language) => {
      const trips = await Promise.all(pivotsOf(language, options.pivots).map((pivot) => roundTrip(dictionary, has, query, language, pivot, options)));
      const byWord = new Map<string, Set<string>>();
      for (const { word, synonyms } of trips.flat()) {
        const all = byWord.get(word) ?? new Set<string>();
        byWord.set(word, all);
        for (const synonym of synonyms) all.add(synonym);
      }
      return [...byWord].map(([word, synonyms]): WordSynonyms => ({ language, word, synonyms: [...synonyms] }));
    }),
  );
  return perLanguage.flat();
}

/** The query's words of `language` with their synonyms through one pivot language (none without both pairs). */
async function roundTrip(
  dictionary: BilingualDictionary,
  has: (pair: LanguagePair) => boolean,
  query: string,
  language: Language,
  pivot: Language,
  options: SynonymOptions,
): Promise<Array<{ word: string; synonyms: string[] }>> {
  const outward = { source: language, target: pivot };
  const back = { source: pivot, target: language };
  if (!has(outward) || !has(back)) return [];
  const [found = []] = await dictionary.lookUp([query], outward);
  const words = found.map(({ word, translations }) => ({ word, pivots: translations.slice(0, options.outward) }));
  if (!words.length) return [];
  const pivotWords = [...new Set(words.flatMap((w) => w.pivots))];
  const backs = new Map((await dictionary.lookUp(pivotWords, back)).map((found, i) => [pivotWords[i]!, found[0]?.translations ?? []]));
  return words.flatMap(({ word, pivots }) => {
    const synonyms = new Set<string>();
    for (const pivotWord of pivots) {
      for (const candidate of (backs.get(pivotWord) ?? []).slice(0, options.back)) {
        if (candidate.length < MIN_SYNONYM_LENGTH || foldAccents(candidate) === foldAccents(word) || pivots.includes(candidate)) continue;
        synonyms.add(candidate);
      }
    }
    return synonyms.size ? [{ word, synonyms: [...synonyms] }] : [];
  });
}
