import type { Language } from '../translation/translation.schema.js';

export interface LanguageDetection {
  /**
   * The supported language the text is written in, or null when it is in none of them (Japanese,
   * Russian, Polish, ...) or gives too little evidence to tell (digits, emoji, a lone short word).
   */
  language: Language | null;
  /**
   * In [0, 1]: how clearly the text favours `language` over every other language the detector
   * knows, supported or not. 0 means another language fits about as well; 1 means none comes close.
   * Always 0 when `language` is null. Each adapter documents its scale.
   */
  confidence: number;
}

/** Identifies the language of a text, such as a search query or a document passage. */
export interface LanguageDetector {
  detect(text: string): LanguageDetection;
}
