import type { Language } from '../translation/translation.schema.js';

/**
 * Splits the compound words of languages that glue words together (German, Dutch): a chunk holding
 * "Druckerwarteschlange" is then also found by "Drucker" and "Warteschlange", and a query for the
 * compound also finds "die Warteschlange des Druckers". Keyword search indexes each chunk's parts
 * beside its words (with the chunk's language), and searches a query's parts beside its words.
 */
export interface Decompounder {
  /** The languages it splits words of (none when no word list is installed). */
  readonly languages: readonly Language[];
  /**
   * The parts of the compound words of `text` in `language`, space-separated, one set per
   * occurrence of a compound (so their counts follow the compound's); '' for another language.
   * `language` null: every language it knows (a query, whose language is not known).
   */
  parts(text: string, language: Language | null): string;
}

/** `text` followed by the parts of its compounds: what keyword search indexes (or searches) for it. */
export function withCompoundParts(decompounder: Decompounder, text: string, language: Language | null): string {
  const parts = decompounder.parts(text, language);
  return parts ? `${text}\n${parts}` : text;
}
