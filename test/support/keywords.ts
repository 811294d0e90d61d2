import type { WordForms } from '../../core/search/bm25.js';

/** Query words given as their lexemes, each lexeme made by every configuration (so counted among all chunks). */
export function wordForms(words: ReadonlyArray<readonly string[]>): WordForms[] {
  return words.map((lexemes) => lexemes.map((lexeme) => ({ lexeme })));
}
