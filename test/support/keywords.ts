import { pino } from 'pino';
import type { WordForms } from '../../core/search/bm25.js';
import { DEFAULT_SEARCH_OPTIONS, type SearchOptions, SearchService } from '../../core/search/search.service.js';
import { keyContext } from '../../bench/support.js';
import type { TestApp } from './app.js';

/** Query words given as their lexemes, each lexeme made by every configuration (so counted among all chunks). */
export function wordForms(words: ReadonlyArray<readonly string[]>): WordForms[] {
  return words.map((lexemes) => lexemes.map((lexeme) => ({ lexeme })));
}

/**
 * Keyword search alone, as the app's own SearchService runs it for the tenant of `key` (its
 * ranking without the vector side, which finds every chunk of a small knowledge base): the
 * documents a query finds, best first.
 */
export async function keywordDocuments(
  app: TestApp,
  key: string,
  options: Partial<SearchOptions> = {},
): Promise<(query: string, topK?: number) => Promise<Array<string | undefined>>> {
  const { db, adapters } = app.services;
  const search = new SearchService(db, adapters.embedder, adapters.vectorIndex, adapters.keywordIndex, adapters.decompounder, {
    ...DEFAULT_SEARCH_OPTIONS,
    mode: 'keyword',
    ...options,
  });
  const ctx = await keyContext(app.services, key, pino({ level: 'silent' }));
  return async (query, topK = 5) =>
    (await search.query(ctx, { query, top_k: topK, source_language: 'auto', translate_response: false })).results.map((r) => r.document_id);
}
