/**
 * Orama as a peer: `@orama/orama` 3.1.18, pure JavaScript, in memory.
 *
 * Orama 3 has no approximate vector index: its vector search is an exact cosine scan over the
 * (filtered) documents in plain JavaScript, so its recall is 1 and its latency grows with the
 * corpus. Set up as Orama's docs show: schema { text: 'string', tag: 'enum',
 * embedding: 'vector[<dimensions>]' } (an enum for the filter field, as the docs advise for a
 * closed set of values; `where: { tag: { eq } }` narrows the scan to those documents first, a true
 * pre-filter). The chunk id is Orama's document id, not an indexed field.
 *
 * One setting departs from the defaults: `similarity` (the minimum cosine a vector hit must have,
 * 0.8 by default) is −1, so no threshold cuts the k nearest: at 0.8 many queries return fewer
 * than k hits on embeddings whose neighbours score 0.5–0.8. Hybrid is Orama's own fusion, not
 * RRF: full-text (BM25 k 1.2, b 0.75 on `text`; English tokenizer without stemming or stop words)
 * and vector scores are each divided by their maximum and summed with weights 0.5/0.5 (all its
 * defaults). Orama's search mutates its stored documents (it sets their vector to null when a
 * search does not include vectors); harmless here, as the index keeps its own copy.
 */
import { create, insertMultiple, search } from '@orama/orama';
import type { PeerChunk, PeerHit, VectorPeer } from './peer.js';

type Vector = `vector[${number}]`;

function oramaIndex(dimensions: number) {
  const embedding: Vector = `vector[${dimensions}]`;
  return create({ schema: { text: 'string', tag: 'enum', embedding } as const });
}

type OramaIndex = ReturnType<typeof oramaIndex>;

/** The minimum cosine of a vector hit: −1 accepts every document, so only k limits the hits. */
const SIMILARITY = -1;

export class OramaPeer implements VectorPeer {
  readonly name = 'Orama 3.1 (exact vector scan, BM25, weighted hybrid)';
  private db: OramaIndex | undefined;

  async build(chunks: PeerChunk[], dimensions: number): Promise<void> {
    const db = oramaIndex(dimensions);
    await insertMultiple(
      db,
      chunks.map((c) => ({ id: c.id, text: c.text, tag: c.tag, embedding: Array.from(c.vector) })),
      1000,
    );
    this.db = db;
  }

  async vectorSearch(vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]> {
    const results = await search(this.open(), {
      mode: 'vector',
      vector: { value: vector, property: 'embedding' },
      similarity: SIMILARITY,
      limit: k,
      ...(tag !== undefined ? { where: { tag: { eq: tag } } } : {}),
    });
    return results.hits.map((h) => ({ id: h.id, score: h.score }));
  }

  async hybridSearch(text: string, vector: Float32Array, k: number, tag?: string): Promise<PeerHit[]> {
    const results = await search(this.open(), {
      mode: 'hybrid',
      term: text,
      properties: ['text'],
      vector: { value: vector, property: 'embedding' },
      similarity: SIMILARITY,
      limit: k,
      ...(tag !== undefined ? { where: { tag: { eq: tag } } } : {}),
    });
    return results.hits.map((h) => ({ id: h.id, score: h.score }));
  }

  close(): Promise<void> {
    this.db = undefined;
    return Promise.resolve();
  }

  private open(): OramaIndex {
    if (!this.db) throw new Error(`${this.name}: build() first`);
    return this.db;
  }
}
