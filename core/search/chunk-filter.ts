import type { Scope } from '../shared/scope.js';
import type { SqlParams} from '../shared/sql-params.js';
import { escapeLike } from '../shared/sql-params.js';

/**
 * Which tenant chunks a search may return. Every condition is applied inside the index scan
 * (never after a top-k cut), so a filtered search still returns `limit` hits when that many match.
 */
export interface ChunkFilter {
  scope: Scope;
  knowledgeBaseIds: string[];
  /** Every listed tag must be present on the document with exactly this value. */
  tags: Record<string, string>;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  /** Case-insensitive substring of the document title. */
  titleContains?: string | undefined;
  /** Only chunks embedded by this embedder (vectors of different models are not comparable). */
  embedder?: string | undefined;
}

/** SQL condition over chunks aliased `alias`, with its parameters added to `params`. */
export function chunkFilterSql(filter: ChunkFilter, params: SqlParams, alias = 'c'): string {
  const a = alias;
  const tenant = params.add(filter.scope.tenantId);
  const knowledgeBases = params.add(filter.knowledgeBaseIds);
  const conditions = [
    `${a}.tenant_id = ${tenant}::uuid`,
    `${a}.knowledge_base_id = ANY(${knowledgeBases}::uuid[])`,
    // Only chunks of ready documents. The few documents still being indexed (or failed) are looked up
    // once per statement, so every row's check is a comparison, also inside an HNSW scan.
    `${a}.document_id <> ALL(ARRAY(SELECT d.id FROM documents d WHERE d.tenant_id = ${tenant}::uuid ` +
      `AND d.knowledge_base_id = ANY(${knowledgeBases}::uuid[]) AND d.status <> 'ready'))`,
  ];
  if (filter.scope.subTenantId) conditions.push(`${a}.sub_tenant_id = ${params.add(filter.scope.subTenantId)}::uuid`);
  if (Object.keys(filter.tags).length) conditions.push(`${a}.doc_tags @> ${params.add(JSON.stringify(filter.tags))}::jsonb`);
  if (filter.createdAfter) conditions.push(`${a}.doc_created_at > ${params.add(filter.createdAfter)}`);
  if (filter.createdBefore) conditions.push(`${a}.doc_created_at < ${params.add(filter.createdBefore)}`);
  if (filter.embedder) conditions.push(`${a}.embedder = ${params.add(filter.embedder)}`);
  if (filter.titleContains) {
    conditions.push(`${a}.doc_title ILIKE ${params.add(`%${escapeLike(filter.titleContains)}%`)}`);
  }
  return conditions.join(' AND ');
}

/**
 * `chunkFilterSql`'s conditions on a document, as a test prepared once per search (an in-memory
 * index calls it for every document of a knowledge base); null when the filter has none. The
 * tenant, knowledge-base, readiness and embedder conditions are the index's own bookkeeping.
 */
export function documentMatcher(
  filter: ChunkFilter,
): ((doc: { subTenantId: string | null; tags: Record<string, string>; createdAt: Date; title: string }) => boolean) | null {
  const subTenantId = filter.scope.subTenantId;
  const tags = Object.entries(filter.tags);
  const after = filter.createdAfter?.getTime();
  const before = filter.createdBefore?.getTime();
  const title = filter.titleContains?.toLowerCase();
  if (!subTenantId && !tags.length && after === undefined && before === undefined && title === undefined) return null;
  return (doc) => {
    if (subTenantId && doc.subTenantId !== subTenantId) return false;
    for (const [key, value] of tags) if (doc.tags[key] !== value) return false;
    if (after !== undefined && !(doc.createdAt.getTime() > after)) return false;
    if (before !== undefined && !(doc.createdAt.getTime() < before)) return false;
    if (title !== undefined && !doc.title.toLowerCase().includes(title)) return false;
    return true;
  };
}

/**
 * Labels let an in-memory index find the owners that may pass a filter without testing every
 * owner: it keeps its owners by label, and a filter's labels are ones every owner it accepts
 * carries (the owners under the rarest of them are then tested with the matcher).
 */
function ownerLabel(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

/** A document's labels: one per tag. */
export function documentLabels(doc: { tags: Record<string, string> }): string[] {
  return Object.entries(doc.tags).map(([key, value]) => ownerLabel(key, value));
}

/** Labels every document passing `documentMatcher(filter)` carries: its tag conditions. */
export function documentFilterLabels(filter: ChunkFilter): string[] {
  return documentLabels(filter);
}

/**
 * Which platform corpus chunks a search may return, applied inside the index scan like `ChunkFilter`.
 * Corpora are shared: the caller decides which corpora the tenant may search.
 */
export interface CorpusChunkFilter {
  corpusIds: string[];
  /** Every listed key must be in the record's metadata with this value, compared as text. */
  metadata: Record<string, string>;
  /** Only chunks embedded by this embedder (vectors of different models are not comparable). */
  embedder?: string | undefined;
}

/** A metadata value as `->>` gives it: strings as they are, other JSON values as JSON text, null as no value. */
export function metadataText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `corpusChunkFilterSql`'s metadata conditions as a test of a record's metadata, for in-memory indexes; null when there are none. */
export function metadataMatcher(filter: CorpusChunkFilter): ((metadata: Record<string, unknown>) => boolean) | null {
  const wanted = Object.entries(filter.metadata);
  if (!wanted.length) return null;
  return (metadata) => wanted.every(([key, value]) => metadataText(metadata[key]) === value);
}

/** A corpus record's labels: one per metadata value that a metadata filter can equal. */
export function recordLabels(record: { metadata: Record<string, unknown> }): string[] {
  const labels: string[] = [];
  for (const [key, value] of Object.entries(record.metadata)) {
    const text = metadataText(value);
    if (text !== undefined) labels.push(ownerLabel(key, text));
  }
  return labels;
}

/** Labels every record passing `metadataMatcher(filter)` carries: its metadata conditions. */
export function recordFilterLabels(filter: CorpusChunkFilter): string[] {
  return Object.entries(filter.metadata).map(([key, value]) => ownerLabel(key, value));
}

/** SQL condition over platform_chunks aliased `alias`, with its parameters added to `params`. */
export function corpusChunkFilterSql(filter: CorpusChunkFilter, params: SqlParams, alias = 'c'): string {
  const a = alias;
  const conditions = [`${a}.corpus_id = ANY(${params.add(filter.corpusIds)}::uuid[])`];
  for (const [key, value] of Object.entries(filter.metadata)) {
    conditions.push(`${a}.metadata ->> ${params.add(key)}::text = ${params.add(value)}::text`);
  }
  if (filter.embedder) conditions.push(`${a}.embedder = ${params.add(filter.embedder)}`);
  return conditions.join(' AND ');
}
