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
   * The parts of the compound words of `text` in any of `languages` (those it knows; a query,
   * whose language is unknown, passes them all), space-separated, one set per occurrence of a
   * compound (so their counts follow the compound's); '' when none.
   */
  parts(text: string, languages: readonly Language[]): string;
}

/**
 * A chunk's `text` followed by the parts of its compounds in its language: what keyword search
 * indexes for it. A chunk of no detected language is not split.
 */
export function withCompoundParts(decompounder: Decompounder, text: string, language: Language | null): string {
  const parts = language ? decompounder.parts(text, [language]) : '';
  return parts ? `${text}\n${parts}` : text;
}
