import { pino } from 'pino';
import type { Queryable } from '../../core/db/database.js';
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
  const search = new SearchService(db, adapters.embedder, adapters.vectorIndex, adapters.keywordIndex, adapters.decompounder, adapters.synonymDictionary ?? null, {
    ...DEFAULT_SEARCH_OPTIONS,
    mode: 'keyword',
    ...options,
  });
  const ctx = await keyContext(app.services, key, pino({ level: 'silent' }));
  return async (query, topK = 5) =>
    (await search.query(ctx, { query, top_k: topK, source_language: 'auto', translate_response: false })).results.map((r) => r.document_id);
}

/** Rows of the keyword statistics tables that differ from a count over the chunk tables (none when exact). */
export async function keywordStatisticsDrift(db: Queryable): Promise<unknown[]> {
  const { rows } = await db.query(
    `WITH counted_collections AS (
       SELECT knowledge_base_id AS collection_id, count(*) AS chunks, sum(length(tsv)) AS lexemes FROM chunks GROUP BY 1
       UNION ALL SELECT corpus_id, count(*), sum(length(tsv)) FROM platform_chunks GROUP BY 1
     ), counted_terms AS (
       SELECT c.knowledge_base_id AS collection_id, u.lexeme, count(*) AS chunks FROM chunks c, unnest(c.tsv) u GROUP BY 1, 2
       UNION ALL SELECT c.corpus_id, u.lexeme, count(*) FROM platform_chunks c, unnest(c.tsv) u GROUP BY 1, 2
     ), counted_languages AS (
       SELECT knowledge_base_id AS collection_id, coalesce(language, '') AS language, count(*) AS chunks FROM chunks GROUP BY 1, 2
       UNION ALL SELECT corpus_id, coalesce(language, ''), count(*) FROM platform_chunks GROUP BY 1, 2
     )
     (SELECT 'kept' AS side, collection_id::text, '' AS lexeme, chunks, lexemes FROM keyword_collections
      EXCEPT SELECT 'kept', collection_id::text, '', chunks, lexemes FROM counted_collections)
     UNION ALL
     (SELECT 'counted', collection_id::text, '', chunks, lexemes FROM counted_collections
      EXCEPT SELECT 'counted', collection_id::text, '', chunks, lexemes FROM keyword_collections)
     UNION ALL
     (SELECT 'kept', collection_id::text, lexeme, chunks, 0 FROM keyword_terms
      EXCEPT SELECT 'kept', collection_id::text, lexeme, chunks, 0 FROM counted_terms)
     UNION ALL
     (SELECT 'counted', collection_id::text, lexeme, chunks, 0 FROM counted_terms
      EXCEPT SELECT 'counted', collection_id::text, lexeme, chunks, 0 FROM keyword_terms)
     UNION ALL
     (SELECT 'kept language', collection_id::text, language, chunks, 0 FROM keyword_languages
      EXCEPT SELECT 'kept language', collection_id::text, language, chunks, 0 FROM counted_languages)
     UNION ALL
     (SELECT 'counted language', collection_id::text, language, chunks, 0 FROM counted_languages
      EXCEPT SELECT 'counted language', collection_id::text, language, chunks, 0 FROM keyword_languages)
     LIMIT 10`,
  );
  return rows;
}
