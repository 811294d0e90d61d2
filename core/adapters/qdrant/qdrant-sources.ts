import type { Queryable } from '../../db/database.js';
import { EmbeddingReader } from '../../db/embeddings.js';
import type { KnownVectors } from '../../ports/vector-index.js';
import { metadataText } from '../../search/chunk-filter.js';

/** A chunk as the Qdrant index stores it: its vector and the payload every search filter reads. */
export interface PointSource {
  id: string;
  vector: Float32Array;
  payload: Record<string, unknown>;
}

/** A ready document's chunks of one embedder, with the document's fields in each point's payload. */
export interface DocumentPoints {
  tenantId: string;
  dimensions: number;
  points: PointSource[];
}

/**
 * The document payload: what ChunkFilter conditions read (tenant, sub-tenant, knowledge base,
 * document, tags, creation time in milliseconds, embedder). Titles are matched in the database
 * (a case-insensitive substring has no Qdrant condition).
 */
export function documentPayload(doc: {
  tenantId: string;
  subTenantId: string | null;
  knowledgeBaseId: string;
  documentId: string;
  tags: Record<string, string>;
  createdAt: Date;
  embedder: string;
}): Record<string, unknown> {
  return {
    tenant_id: doc.tenantId,
    sub_tenant_id: doc.subTenantId ?? '',
    knowledge_base_id: doc.knowledgeBaseId,
    document_id: doc.documentId,
    tags: doc.tags,
    created_at: doc.createdAt.getTime(),
    embedder: doc.embedder,
  };
}

/** A record's metadata as text, each value as `->>` gives it, which is how ChunkFilter compares them. */
function metadataTexts(metadata: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    const text = metadataText(value);
    if (text !== undefined) out[key] = text;
  }
  return out;
}

/**
 * Reads what the Qdrant index mirrors from the chunk tables (the source of truth): ready documents'
 * chunks and corpus records' chunks, of the embedder in use, with their vectors.
 */
export class QdrantSources {
  constructor(
    private readonly db: Queryable,
    private readonly embedderId: string,
  ) {}

  /** The ready documents among these, each with its chunks (a document not ready, or deleted, is left out). */
  async documents(documentIds: string[]): Promise<DocumentPoints[]> {
    if (!documentIds.length) return [];
    const reader = await EmbeddingReader.of(this.db);
    const { rows } = await this.db.query<{
      id: string;
      document_id: string;
      tenant_id: string;
      sub_tenant_id: string | null;
      knowledge_base_id: string;
      tags: Record<string, string>;
      created_at: Date;
      dimensions: number;
      e: unknown;
    }>(
      `SELECT c.id, c.document_id, d.tenant_id, d.sub_tenant_id, d.knowledge_base_id, d.tags, d.created_at, kb.dimensions,
              ${reader.select('c.embedding')} AS e
       FROM documents d JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id AND kb.tenant_id = d.tenant_id
       JOIN chunks c ON c.document_id = d.id AND c.tenant_id = d.tenant_id
       WHERE d.id = ANY($1::uuid[]) AND d.status = 'ready' AND c.embedder = $2
       ORDER BY c.document_id, c.chunk_index`, // unscoped: notifications name documents of any tenant
      [documentIds, this.embedderId],
    );
    const byTenant = new Map<string, DocumentPoints>();
    for (const r of rows) {
      const key = `${r.tenant_id}/${r.dimensions}`;
      let group = byTenant.get(key);
      if (!group) byTenant.set(key, (group = { tenantId: r.tenant_id, dimensions: r.dimensions, points: [] }));
      group.points.push({
        id: r.id,
        vector: reader.parse(r.e),
        payload: documentPayload({
          tenantId: r.tenant_id,
          subTenantId: r.sub_tenant_id,
          knowledgeBaseId: r.knowledge_base_id,
          documentId: r.document_id,
          tags: r.tags,
          createdAt: new Date(r.created_at),
          embedder: this.embedderId,
        }),
      });
    }
    return [...byTenant.values()];
  }

  /** The chunks of these records of a corpus (vectors in `known` are taken as given), grouped by dimensions. */
  async records(corpusId: string, recordIds: string[], known?: KnownVectors): Promise<Array<{ dimensions: number; points: PointSource[] }>> {
    if (!recordIds.length) return [];
    const reader = await EmbeddingReader.of(this.db);
    const knownIds = known ? [...known.keys()] : [];
    const { rows } = await this.db.query<{ id: string; source_record_id: string; dimensions: number; metadata: Record<string, unknown>; e: unknown }>(
      `SELECT id, source_record_id, dimensions, metadata,
              CASE WHEN id = ANY($4::uuid[]) THEN NULL ELSE ${reader.select('embedding')} END AS e
       FROM platform_chunks WHERE corpus_id = $1 AND source_record_id = ANY($2::text[]) AND embedder = $3
       ORDER BY source_record_id, chunk_index`,
      [corpusId, recordIds, this.embedderId, knownIds],
    );
    const byDimensions = new Map<number, PointSource[]>();
    for (const r of rows) {
      const vector = r.e === null ? known?.get(r.id) : reader.parse(r.e);
      if (!vector) continue;
      const list = byDimensions.get(r.dimensions) ?? [];
      byDimensions.set(r.dimensions, list);
      list.push({
        id: r.id,
        vector,
        payload: { corpus_id: corpusId, source_record_id: r.source_record_id, metadata: metadataTexts(r.metadata), embedder: this.embedderId },
      });
    }
    return [...byDimensions].map(([dimensions, points]) => ({ dimensions, points }));
  }

  /** The documents of these knowledge bases whose title contains `text` (case-insensitive), as ChunkFilter's titleContains. */
  async documentsTitled(tenantId: string, knowledgeBaseIds: string[], pattern: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT id FROM documents WHERE tenant_id = $1 AND knowledge_base_id = ANY($2::uuid[]) AND title ILIKE $3`,
      [tenantId, knowledgeBaseIds, pattern],
    );
    return rows.map((r) => r.id);
  }
}

/** How many chunks of the embedder each ready document has, by tenant and dimensions (what the tenant collections should hold). */
export interface ExpectedDocuments {
  tenantIds: Set<string>;
  /** collection key `${tenantId}_${dimensions}` → document id → chunk count. */
  documents: Map<string, Map<string, number>>;
}

export async function expectedDocuments(db: Queryable, embedderId: string): Promise<ExpectedDocuments> {
  const tenants = await db.query<{ id: string }>('SELECT id FROM tenants');
  const { rows } = await db.query<{ tenant_id: string; dimensions: number; id: string; n: number }>(
    `SELECT d.tenant_id, kb.dimensions, d.id, count(*)::int AS n
     FROM documents d JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id
     JOIN chunks c ON c.document_id = d.id AND c.tenant_id = d.tenant_id AND c.embedder = $1
     WHERE d.status = 'ready' GROUP BY d.tenant_id, kb.dimensions, d.id`, // unscoped: the whole instance is compared
    [embedderId],
  );
  const documents = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const key = `${r.tenant_id}_${r.dimensions}`;
    const map = documents.get(key) ?? new Map<string, number>();
    documents.set(key, map);
    map.set(r.id, r.n);
  }
  return { tenantIds: new Set(tenants.rows.map((t) => t.id)), documents };
}

/** How many chunks of the embedder each corpus record has, by dimensions: `${corpusId}/${recordId}` → count. */
export async function expectedRecords(db: Queryable, embedderId: string): Promise<Map<number, Map<string, number>>> {
  const { rows } = await db.query<{ corpus_id: string; source_record_id: string; dimensions: number; n: number }>(
    `SELECT corpus_id, source_record_id, dimensions, count(*)::int AS n FROM platform_chunks WHERE embedder = $1
     GROUP BY corpus_id, source_record_id, dimensions`,
    [embedderId],
  );
  const out = new Map<number, Map<string, number>>();
  for (const r of rows) {
    const map = out.get(r.dimensions) ?? new Map<string, number>();
    out.set(r.dimensions, map);
    map.set(`${r.corpus_id}/${r.source_record_id}`, r.n);
  }
  return out;
}
