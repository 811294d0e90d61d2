/**
 * One interface for the embedded engines a user could pick instead of Lore, so a bench can load the
 * same chunks with the same vectors into each and time them side by side. Every peer ranks by cosine
 * similarity (higher `score` is better); how each engine is set up, and why, is in its own file.
 */

export interface PeerChunk {
  id: string;
  text: string;
  vector: Float32Array;
  /** A filter value, e.g. 'p10'. */
  tag: string;
}

export interface PeerHit {
  id: string;
  score: number;
}

export interface VectorPeer {
  /** e.g. 'LanceDB 0.x (IVF_PQ + FTS)'. */
  readonly name: string;
  /** Loads every chunk and builds whatever indexes the engine needs; resolves when searchable. */
  build(chunks: PeerChunk[], dimensions: number): Promise<void>;
  /** tag: only chunks with that tag, filter applied inside the search (pre-filter) where the engine can. */
  vectorSearch(vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]>;
  /** Hybrid (vector + full text, fused as the engine does it, e.g. RRF); undefined when the engine has no hybrid mode. */
  hybridSearch?(text: string, vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]>;
  close(): Promise<void>;
}
