import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { ValidationError, errors } from '../errors.js';
import { TEXT_SEARCH_CONFIG } from '../ingestion/ingestion.service.js';
import { listKnowledgeBases } from '../knowledge-bases/knowledge-base.repository.js';
import type { Embedder } from '../ports/embedder.js';
import type { VectorIndex } from '../ports/vector-index.js';
import { isUuid } from '../shared/ids.js';
import { scopeOf } from '../shared/scope.js';
import { SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import type { ChunkFilter } from './chunk-filter.js';
import { type FusionOptions, DEFAULT_FUSION, reciprocalRankFusion } from './fusion.js';
import { chunkDetails, keywordSearch } from './search.repository.js';
import type { QueryRequest, QueryResultItem } from './search.schema.js';

export interface SearchOptions {
  /** Which retrievers run: both fused (the product), or one alone (benchmarks compare them). */
  mode: 'hybrid' | 'vector' | 'keyword';
  fusion: FusionOptions;
  /** Each retriever contributes max(minCandidates, candidateFactor × top_k) candidates to fusion. */
  candidateFactor: number;
  minCandidates: number;
}

export const DEFAULT_SEARCH_OPTIONS: SearchOptions = {
  mode: 'hybrid',
  fusion: DEFAULT_FUSION,
  candidateFactor: 3,
  minCandidates: 50,
};

const ALL_TEXT_SEARCH_CONFIGS = [...new Set(Object.values(TEXT_SEARCH_CONFIG))];

export type ParsedFilters = Pick<ChunkFilter, 'tags' | 'createdAfter' | 'createdBefore' | 'titleContains'>;

/** Turns the request's `filters` object into a chunk filter; unknown keys and bad dates are 422. */
export function parseFilters(filters: Record<string, string> | undefined): ParsedFilters {
  const out: ParsedFilters = { tags: {} };
  const issues: Array<{ field: string; message: string }> = [];
  for (const [key, value] of Object.entries(filters ?? {})) {
    const field = `body.filters.${key}`;
    if (key.startsWith('tags.') && key.length > 5) out.tags[key.slice(5)] = value;
    else if (key === 'created_after' || key === 'created_before') {
      const date = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(NaN);
      if (Number.isNaN(date.getTime())) issues.push({ field, message: 'must be an ISO 8601 date or date-time' });
      else if (key === 'created_after') out.createdAfter = date;
      else out.createdBefore = date;
    } else if (key === 'document_title') out.titleContains = value;
    else issues.push({ field, message: 'unknown filter; use tags.<key>, created_after, created_before or document_title' });
  }
  if (issues.length) throw new ValidationError(issues);
  return out;
}

/**
 * Hybrid retrieval: vector search (per embedding dimension in use) and keyword search over the
 * same filtered chunk set, fused by reciprocal rank. Only chunks of fully indexed documents are
 * searchable; a deleted document's chunks are gone with it.
 */
export class SearchService {
  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly vectors: VectorIndex,
    private readonly options: SearchOptions = DEFAULT_SEARCH_OPTIONS,
  ) {}

  /** Checks a query's fields that the schema cannot (language, filters); throws before any work. */
  validate(request: QueryRequest): ParsedFilters {
    if (request.source_language !== 'auto' && !(SUPPORTED_LANGUAGES as readonly string[]).includes(request.source_language)) {
      throw errors.badRequest('unsupported_language', `source_language must be auto or one of ${SUPPORTED_LANGUAGES.join(', ')}.`);
    }
    return parseFilters(request.filters);
  }

  /** Retrieval only: no quotas and no metering (QueryService adds those around it). */
  async query(ctx: RequestContext, request: QueryRequest): Promise<{ results: QueryResultItem[] }> {
    return { results: await this.search(ctx, request, this.validate(request)) };
  }

  private async search(ctx: RequestContext, request: QueryRequest, filters: ParsedFilters): Promise<QueryResultItem[]> {
    const scope = scopeOf(ctx);
    const visible = await listKnowledgeBases(this.db, scope);
    let kbs = visible;
    if (request.knowledge_base_ids) {
      const wanted = new Set(request.knowledge_base_ids);
      kbs = visible.filter((kb) => wanted.has(kb.id));
      const missing = request.knowledge_base_ids.find((id) => !isUuid(id) || !kbs.some((kb) => kb.id === id));
      if (missing !== undefined) throw errors.notFound('knowledge base');
    }
    if (!kbs.length) return [];

    const limit = Math.max(this.options.minCandidates, this.options.candidateFactor * request.top_k);
    const byDimensions = new Map<number, string[]>();
    for (const kb of kbs) byDimensions.set(kb.dimensions, [...(byDimensions.get(kb.dimensions) ?? []), kb.id]);
    const baseFilter = { scope, ...filters };

    const { mode } = this.options;
    const vectorHits = (
      mode === 'keyword' ? [] : await Promise.all(
        [...byDimensions.entries()].map(async ([dimensions, ids]) => {
          const [vector] = await this.embedder.embed([request.query], { dimensions, kind: 'query' });
          return this.vectors.search({
            filter: { ...baseFilter, knowledgeBaseIds: ids, embedder: this.embedder.id },
            dimensions,
            vector: vector!,
            limit,
          });
        }),
      )
    )
      .flat()
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, limit);
    const keywordHits =
      mode === 'vector'
        ? []
        : await keywordSearch(this.db, {
            filter: { ...baseFilter, knowledgeBaseIds: kbs.map((kb) => kb.id) },
            query: request.query,
            configs: ALL_TEXT_SEARCH_CONFIGS,
            limit,
          });

    const fused = reciprocalRankFusion(
      [vectorHits.map((h) => h.chunkId), keywordHits.map((h) => h.chunkId)],
      this.options.fusion,
    ).slice(0, request.top_k);
    const details = await chunkDetails(this.db, ctx.tenantId, fused.map((f) => f.id));
    const results: QueryResultItem[] = [];
    for (const { id, score } of fused) {
      const c = details.get(id);
      if (!c) continue;
      results.push({
        content: c.content,
        score,
        source: 'tenant',
        document_id: c.document_id,
        chunk_id: c.id,
        knowledge_base_id: c.knowledge_base_id,
        document_title: c.doc_title,
        chunk_index: c.chunk_index,
        document_tags: c.doc_tags,
      });
    }
    return results;
  }
}
