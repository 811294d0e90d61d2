import { type Decompounder, withCompoundParts } from '../ports/decompounder.js';
import type { Language } from '../translation/translation.schema.js';
import { BULGARIAN_STOP_WORDS, bulgarianKeywordText, bulgarianStem } from './bulgarian.js';
import { spanishKeywordText, spanishLexeme } from './spanish.js';

/**
 * How keyword search analyses each language's text: with PostgreSQL's text-search configuration
 * of that name (stemming and stop words), or with Lore's own stemmer and stop words before
 * PostgreSQL's 'simple' (lower-casing only): Bulgarian, for which PostgreSQL has none
 * (core/search/bulgarian.ts), and Spanish, whose light stemmer ranks better than PostgreSQL's
 * Snowball stemmer (core/search/spanish.ts). Text of no detected language is analysed by 'simple'.
 */
export const KEYWORD_ANALYSIS: Record<Language, string> = {
  en: 'english',
  nl: 'dutch',
  fr: 'french',
  de: 'german',
  es: 'spanish_light',
  it: 'italian',
  ro: 'romanian',
  bg: 'bulgarian',
};

/** One of Lore's own analyses, followed by PostgreSQL's 'simple'. */
interface OwnAnalysis {
  /** What a chunk's text becomes before 'simple' indexes it: stems, stop words dropped. */
  text(text: string): string;
  /** The lexeme it makes of a query word ('simple'-normalised: lower-cased), or null for a stop word. */
  lexeme(word: string): string | null;
}

const OWN_ANALYSES: ReadonlyMap<string, OwnAnalysis> = new Map([
  ['bulgarian', { text: bulgarianKeywordText, lexeme: (word: string) => (BULGARIAN_STOP_WORDS.has(word) ? null : bulgarianStem(word)) }],
  ['spanish_light', { text: spanishKeywordText, lexeme: spanishLexeme }],
]);

/** Whether an analysis is Lore's own (else it is PostgreSQL's configuration of that name). */
export function isOwnAnalysis(analysis: string): boolean {
  return OWN_ANALYSES.has(analysis);
}

/** The lexeme Lore's own analysis makes of a query word ('simple'-normalised), or null for a stop word. */
export function ownAnalysisLexeme(analysis: string, word: string): string | null {
  const own = OWN_ANALYSES.get(analysis);
  if (!own) throw new Error(`${analysis} is not one of Lore's own analyses`);
  return own.lexeme(word);
}

/** The analysis of a chunk of this language (a language Lore does not know, or none: 'simple'). */
export function keywordAnalysis(language: string | null): string {
  return (language !== null && (KEYWORD_ANALYSIS as Record<string, string | undefined>)[language]) || 'simple';
}

/** The PostgreSQL text-search configuration a chunk of this language is indexed with. */
export function textSearchConfig(language: string | null): string {
  const analysis = keywordAnalysis(language);
  return isOwnAnalysis(analysis) ? 'simple' : analysis;
}

/** Every analysis chunks are indexed with: a query, whose language is not known, is normalised with each. */
export const ALL_KEYWORD_ANALYSES: readonly string[] = [...new Set([...Object.values(KEYWORD_ANALYSIS), 'simple'])];

/** PostgreSQL's configurations among `analyses` (Lore's own left out). */
export function postgresConfigs(analyses: readonly string[] = ALL_KEYWORD_ANALYSES): string[] {
  return analyses.filter((a) => !isOwnAnalysis(a));
}

/**
 * What keyword search indexes of a chunk's (or its title's) text, before its configuration: the
 * text with the words of its slash-joined words (withSlashParts), then, for a language of Lore's own
 * analysis (Bulgarian, Spanish), its stems without its stop words; a German or Dutch text with the
 * parts of its compounds (see Decompounder); any other as it is.
 */
export function keywordText(decompounder: Decompounder, text: string, language: Language | null): string {
  const split = withSlashParts(text);
  const own = OWN_ANALYSES.get(keywordAnalysis(language));
  return own ? own.text(split) : withCompoundParts(decompounder, split, language);
}

/** Words joined by slashes ('rows/columns', 'antes/después', 'E/S'); not paths or addresses ('/etc/passwd', 'a/b/1', 'x.org/a'). */
const SLASH_JOINED = /(?<![\p{L}\p{M}\p{N}/.:~_-])[\p{L}\p{M}]+(?:\/[\p{L}\p{M}]+)+(?![\p{L}\p{M}\p{N}/])/gu;

/**
 * The text followed by the words its slash-joined words are made of. PostgreSQL's parser keeps
 * 'rows/columns' as one token (it reads it as a file path; 'antes/después' even becomes
 * 'antes/despu' and 'és'), so a query for "insert rows/columns" matched neither "rows" nor
 * "columns", nor a page's "rows/columns" a query for "columns". The joined token stays: chunks
 * indexed before the parts were added still match a query holding it. Queries get the same
 * (`queryLexemes`), so both sides hold both.
 */
export function withSlashParts(text: string): string {
  const joined = text.match(SLASH_JOINED);
  return joined ? `${text}\n${joined.map((words) => words.replaceAll('/', ' ')).join(' ')}` : text;
}
