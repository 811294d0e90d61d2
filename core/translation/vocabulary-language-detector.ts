import type { LanguageDetection, LanguageDetector } from '../ports/language-detector.js';
import { dictionaryForms } from './dictionary-forms.js';
import { type Language, SUPPORTED_LANGUAGES } from './translation.schema.js';

/** The words each supported language is known to have (lower-cased), e.g. the catalogue dictionaries' headwords. */
export type LanguageVocabularies = ReadonlyMap<Language, ReadonlySet<string>>;

/**
 * A text of at most this many words is short enough for its words to be counted: queries and
 * index terms are one to six words, where character n-grams have least to go on.
 */
export const VOCABULARY_MAX_WORDS = 8;

/**
 * Below this confidence the vocabulary is consulted. On 1,000 help index terms and 1,000 package
 * descriptions a language (bench/language-detection.bench.ts `--index-terms`), a bound of 0.1
 * mends a little less, and any bound from 0.25 to always consulting mends as much, always
 * consulting costing English a point; 0.25 keeps every answer eld gives with a clear lead.
 */
export const VOCABULARY_MAX_CONFIDENCE = 0.25;

/**
 * Language detection for short texts that also counts words. Character n-grams (eld) tell
 * sentences apart reliably, but a two- or three-word query gives them little: "Documents vierges"
 * looks English to eld, "pegar resultados de fórmulas" like nothing. When the inner detector's answer is
 * unsure (confidence under VOCABULARY_MAX_CONFIDENCE, or none) and the text is short, each
 * language's vocabulary counts the text's words it knows (a word or one of its dictionary forms:
 * "vierges" as "vierge"), and one language that knows more of them than any other and than the
 * inner answer replaces that answer; where the inner detector found none, only a language that
 * knows every word does. Everything else is the inner detector's answer unchanged.
 *
 * An answer the vocabulary decides has as confidence its lead in known words over the next
 * language, as a share of the text's words, times VOCABULARY_MAX_CONFIDENCE ("Documents vierges":
 * French knows 2, English 1: 0.125). It is never above what eld is unsure at: the
 * vocabularies hold the eight languages only, so a word known to one of them may as well be
 * Portuguese or Catalan ("cubos").
 */
export class VocabularyLanguageDetector implements LanguageDetector {
  constructor(
    private readonly inner: LanguageDetector,
    private readonly vocabularies: LanguageVocabularies,
    /** Measuring other bounds only (bench/language-detection.bench.ts). */
    private readonly maxConfidence = VOCABULARY_MAX_CONFIDENCE,
  ) {}

  detect(text: string): LanguageDetection {
    const detected = this.inner.detect(text);
    if (detected.confidence >= this.maxConfidence) return detected;
    const words = vocabularyWords(text);
    if (!words.length || words.length > VOCABULARY_MAX_WORDS) return detected;

    const known = SUPPORTED_LANGUAGES.map((language) => ({ language, count: this.knownWords(words, language) })).sort((a, b) => b.count - a.count);
    const [best, next] = known;
    // A unique best, which is not already the answer (so it knows more words than the answer does).
    if (!best || best.count === 0 || best.count === next?.count || best.language === detected.language) return detected;
    if (!detected.language && best.count < words.length) return detected;
    return { language: best.language, confidence: (this.maxConfidence * (best.count - (next?.count ?? 0))) / words.length };
  }

  private knownWords(words: string[], language: Language): number {
    const vocabulary = this.vocabularies.get(language);
    if (!vocabulary) return 0;
    return words.filter((word) => dictionaryForms(word, language).some((form) => vocabulary.has(form))).length;
  }
}

/** A text's words as vocabularies key them: runs of two or more letters, lower-cased. */
export function vocabularyWords(text: string): string[] {
  return text.toLowerCase().match(/\p{L}{2,}/gu) ?? [];
}
