import type { ChunkFilter, CorpusChunkFilter } from '../search/chunk-filter.js';

export interface VectorHit {
  chunkId: string;
  /** Cosine similarity in [-1, 1]; higher is closer. */
  similarity: number;
}

/** Orders hits closest first; equal similarities by chunk id, so a ranking is stable. */
export function compareHits(a: VectorHit, b: VectorHit): number {
  return b.similarity - a.similarity || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0);
}

/** Which chunks a vector search covers: a tenant's own (`chunks`) or the corpora's (`platform_chunks`). */
export type VectorTarget = 'tenant' | 'corpus';

/** Whether each target's index can serve searches (GET /health/index). */
export type VectorIndexStatus = Record<VectorTarget, 'ok' | 'missing'>;

/** Vectors an indexing job has in hand, by chunk id, so an adapter need not read them back. */
export type KnownVectors = ReadonlyMap<string, Float32Array>;

/** A document that became searchable, with what its indexing job knows of it. */
export interface DocumentIndexed {
  id: string;
  /**
   * The document's fields and every chunk with its vector, when the job wrote them all (its first
   * attempt); otherwise adapters read the document back from the tables.
   */
  written?: {
    tenantId: string;
    subTenantId: string | null;
    knowledgeBaseId: string;
    dimensions: number;
    title: string;
    tags: Record<string, string>;
    createdAt: Date;
    /** The version the tables hold once it is ready (see rowVersionSql). */
    version: string;
    /** Each chunk's vector and its tsvector as PostgreSQL writes it as text (`tsv::text`; see tsvectorOccurrences). */
    chunks: Array<{ id: string; vector: Float32Array; tsvector?: string }>;
  };
}

/**
 * Nearest-neighbour search over chunk embeddings: tenant chunks and platform corpus chunks. The
 * chunk tables stay the source of truth for embeddings; an adapter either searches them in place
 * (pgvector) or keeps a derived copy (the in-process flat index, Qdrant) that the change
 * notifications below keep current.
 */
export interface VectorIndex {
  /** Which adapter this is, for logs: 'postgres' (pgvector HNSW or exact scan), 'flat' or 'qdrant'. */
  readonly kind: string;
  /** Prepares the index at start-up (may continue in the background; searches are correct meanwhile). */
  start(): Promise<void>;
  /** Resolves when the start-up work finished and searches are served by the index itself. */
  readonly loaded: Promise<void>;
  /** Stops background work. */
  close(): Promise<void>;
  status(): Promise<VectorIndexStatus>;
  /** Prepares the index for vectors of this many dimensions (idempotent); default target: tenant chunks. */
  ensureDimensions(dimensions: number, target?: VectorTarget): Promise<void>;
  search(params: { filter: ChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]>;
  /** As `search`, over the chunks of platform corpora; the corpus and metadata filters apply inside the scan. */
  searchCorpora(params: { filter: CorpusChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]>;

  // Change notifications, each sent after the transaction that made the change committed.
  // Adapters that search the tables in place ignore them.

  /** These documents became searchable (their chunks are written and the document is ready). */
  documentsIndexed(documents: DocumentIndexed[]): Promise<void>;
  /** These documents and their chunks were deleted. */
  documentsRemoved(documentIds: string[]): Promise<void>;
  /** A tenant, or one of its sub-tenants, was deleted with all its knowledge bases and documents. */
  tenantRemoved(owner: { tenantId: string; subTenantId?: string | null }): Promise<void>;
  /** These corpus records' chunks were (re)written: their previous chunks are gone. */
  corpusRecordsIndexed(corpusId: string, recordIds: string[], known?: KnownVectors): Promise<void>;
  /** These corpus records (null: the whole corpus) were deleted. */
  corpusRecordsRemoved(corpusId: string, recordIds: string[] | null): Promise<void>;

  /**
   * For adapters that keep a copy in another system (Qdrant): compares it with the chunk tables and
   * repairs the differences (`npm run cli -- vector-index reconcile`). The flat index reloads from
   * the tables at start-up and pgvector searches them in place, so they have none.
   */
  reconcile?(): Promise<ReconcileReport>;
  /**
   * For adapters that keep each tenant's vectors in storage of its own (Qdrant collections): creates
   * it ahead of the first document, or again when it was deleted outside Lore (the Kubernetes
   * operator calls this). True when it created something.
   */
  ensureTenant?(tenantId: string, dimensions: number): Promise<boolean>;
}

/** What a reconciliation changed. */
export interface ReconcileReport {
  documentsIndexed: number;
  documentsRemoved: number;
  collectionsDropped: number;
  recordsIndexed: number;
  recordsRemoved: number;
}
