import type { Decompounder } from '../ports/decompounder.js';
import type { Language } from '../translation/translation.schema.js';
import { type FoldedWords, foldedWords } from './accent-folding.js';
import { keywordText, textSearchConfig } from './text-search-config.js';

/**
 * What a chunk's keyword index (tsvector) is built from, by keywordIndexColumns: its language's
 * configuration, its text and its document's title as keyword search analyses them (keywordText),
 * and the words of each that accent folding changes, with their folded spellings (foldedWords).
 * Ingestion, corpus ingestion and the keyword index's rebuild (keyword-rebuild.ts) all index a
 * chunk from this, so the three cannot drift apart.
 */
export interface ChunkKeywords {
  textSearchConfig: string;
  text: string;
  /** Absent for corpus chunks, which have no title. */
  title?: string;
  foldedText: FoldedWords;
  foldedTitle?: FoldedWords;
}

export function chunkKeywords(decompounder: Decompounder, language: Language | null, content: string, title?: string): ChunkKeywords {
  const text = keywordText(decompounder, content, language);
  const analysedTitle = title === undefined ? undefined : keywordText(decompounder, title, language);
  return {
    textSearchConfig: textSearchConfig(language),
    text,
    foldedText: foldedWords(text),
    ...(analysedTitle === undefined ? {} : { title: analysedTitle, foldedTitle: foldedWords(analysedTitle) }),
  };
}
