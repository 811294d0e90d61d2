import type { ChunkFilter, PlatformChunkFilter } from '../search/chunk-filter.js';

export interface VectorHit {
  chunkId: string;
  /** Cosine similarity in [-1, 1]; higher is closer. */
  similarity: number;
}

/** Which chunks a vector search covers: a tenant's own (`chunks`) or the platform corpora's (`platform_chunks`). */
export type VectorTarget = 'tenant' | 'platform';

/**
 * Nearest-neighbour search over chunk embeddings: tenant chunks and platform corpus chunks. The
 * chunk tables stay the source of truth for embeddings; an index adapter either searches them in
 * place (pgvector) or keeps a derived copy (Qdrant) that `upsert`/`remove` maintain.
 */
export interface VectorIndex {
  /** Which adapter this is, for logs: 'postgres' (pgvector HNSW or exact scan) or 'qdrant'. */
  readonly kind: string;
  /** Prepares the index for vectors of this many dimensions (idempotent); default target: tenant chunks. */
  ensureDimensions(dimensions: number, target?: VectorTarget): Promise<void>;
  search(params: { filter: ChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]>;
  /** As `search`, over the chunks of platform corpora; the corpus and metadata filters apply inside the scan. */
  searchPlatform(params: { filter: PlatformChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]>;
}
