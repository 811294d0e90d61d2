import type { Language } from '../translation/translation.schema.js';

/**
 * PostgreSQL text-search configurations by language, which index each chunk's text (stemming and
 * stop words); Bulgarian has none and uses 'simple' (lower-casing only).
 */
export const TEXT_SEARCH_CONFIG: Record<Language, string> = {
  en: 'english',
  nl: 'dutch',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  ro: 'romanian',
  bg: 'simple',
};

/** Every configuration chunks are indexed with: a query, whose language is not known, is normalised with each. */
export const ALL_TEXT_SEARCH_CONFIGS: readonly string[] = [...new Set([...Object.values(TEXT_SEARCH_CONFIG), 'simple'])];

/** The configuration of a chunk of this language (a language Lore does not know, or none: 'simple'). */
export function textSearchConfig(language: string | null): string {
  return (language !== null && (TEXT_SEARCH_CONFIG as Record<string, string | undefined>)[language]) || 'simple';
}
