import type { ChunkFilter } from '../search/chunk-filter.js';

export interface VectorHit {
  chunkId: string;
  /** Cosine similarity in [-1, 1]; higher is closer. */
  similarity: number;
}

/**
 * Nearest-neighbour search over tenant chunk embeddings. The chunks table stays the source of
 * truth for embeddings; an index adapter either searches it in place (pgvector) or keeps a
 * derived copy (Qdrant) that `upsert`/`remove` maintain.
 */
export interface VectorIndex {
  /** Which adapter this is, for logs: 'postgres' (pgvector HNSW or exact scan) or 'qdrant'. */
  readonly kind: string;
  /** Prepares the index for vectors of this many dimensions (idempotent). */
  ensureDimensions(dimensions: number): Promise<void>;
  search(params: { filter: ChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]>;
}
